// bun scripts/embedded-template.ts: writes the embedded database's template (src/platform/Sql/embedded/), a data
// directory fresh from PGlite's initdb, for the installed @electric-sql/pglite. A new embedded database
// starts from it (src/platform/Sql/EmbeddedTemplate.ts) instead of running initdb, which takes 4-6 s and over 1 GB of
// memory in-process. Run it again whenever @electric-sql/pglite changes version (a test says so).
import { PGlite } from "@electric-sql/pglite"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { version } from "../node_modules/@electric-sql/pglite/package.json" with { type: "json" }

const out = new URL("../src/platform/Sql/embedded/", import.meta.url).pathname
const scratch = mkdtempSync(join(tmpdir(), "pgdata-template-"))
try {
  const dataDir = join(scratch, "data")
  const db = await PGlite.create(dataDir)
  await db.close() // a clean shutdown: checkpointed, nothing to recover on the first start
  // GNU tar for the directories PostgreSQL needs even when empty; sorted, owner and times fixed, so the
  // same PGlite gives the same bytes up to initdb's own randomness (the system identifier).
  const entries = readdirSync(dataDir).sort()
  const tar = Bun.spawnSync(
    [
      "tar",
      "--sort=name",
      "--owner=0",
      "--group=0",
      "--numeric-owner",
      "--mtime=@0",
      "-cf",
      "-",
      "-C",
      dataDir,
      "--",
      ...entries
    ],
    { stderr: "inherit" }
  )
  if (tar.exitCode !== 0) throw new Error(`tar exited with ${tar.exitCode}`)
  // Level 22 finds the three near-identical databases (template0, template1, postgres): 1.1 MB, not 4.5 MB gzipped.
  const compressed = Bun.zstdCompressSync(tar.stdout, { level: 22 })
  writeFileSync(join(out, "pgdata.tar.zst"), compressed)
  writeFileSync(join(out, "pgdata.json"), `${JSON.stringify({ pglite: version }, null, 2)}\n`)
  console.log(
    `src/platform/Sql/embedded/pgdata.tar.zst: ${tar.stdout.length} bytes of tar in ${compressed.length}, for PGlite ${version}`
  )
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
