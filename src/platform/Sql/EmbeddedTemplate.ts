import { existsSync } from "node:fs"
import { join } from "node:path"
import { version as installed } from "../../../node_modules/@electric-sql/pglite/package.json" with { type: "json" }
import template from "./embedded/pgdata.json" with { type: "json" }
// Imported as a file so `bun build --compile` embeds it (see PgliteAssets.ts).
import pgdata from "./embedded/pgdata.tar.zst" with { type: "file" }

// Plain promises, no Effect: this runs in the embedded database's thread (EmbeddedWorker.ts).

/** The template's tar, or why there is none: it was made for another PGlite version. */
export const templateTar = async (): Promise<{ readonly tar: Uint8Array } | { readonly warning: string }> =>
  template.pglite === installed
    ? { tar: Bun.zstdDecompressSync(await Bun.file(pgdata).arrayBuffer()) }
    : {
        warning:
          `the embedded database template is for PGlite ${template.pglite}, not the installed ${installed}: ` +
          "running initdb instead (slower, and a memory peak); `bun scripts/embedded-template.ts` makes a new one"
      }

/**
 * Lays a new embedded data directory from the template (scripts/embedded-template.ts): the data directory
 * PGlite's initdb makes, unpacked in well under a second, where initdb itself takes 4-6 s and, in this
 * process, over a gigabyte of memory that is never all given back. PG_VERSION comes last: PGlite opens a
 * directory that has it as a database, so an unpacking cut short is done again on the next start. Without
 * a template of the installed PGlite, PGlite runs initdb, as it would without one; the warning says so.
 */
export const layTemplate = async (dataDir: string): Promise<{ readonly warning?: string }> => {
  if (existsSync(join(dataDir, "PG_VERSION"))) return {}
  const found = await templateTar()
  if ("warning" in found) return found
  const archive = new Bun.Archive(found.tar)
  await archive.extract(dataDir, { glob: ["**", "!PG_VERSION"] })
  await archive.extract(dataDir, { glob: "PG_VERSION" })
  return {}
}
