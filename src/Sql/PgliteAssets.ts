import { Effect } from "effect"
// Imported as files so `bun build --compile` embeds them; a compiled binary cannot find them otherwise.
import initdbWasm from "../../node_modules/@electric-sql/pglite/dist/initdb.wasm" with { type: "file" }
import pgliteData from "../../node_modules/@electric-sql/pglite/dist/pglite.data" with { type: "file" }
import pgliteWasm from "../../node_modules/@electric-sql/pglite/dist/pglite.wasm" with { type: "file" }

const compile = (path: string) => Effect.promise(async () => WebAssembly.compile(await Bun.file(path).arrayBuffer()))

/** PGlite's WebAssembly modules and file-system bundle, from wherever this program carries them. */
export const pgliteAssets = Effect.all({
  pgliteWasmModule: compile(pgliteWasm),
  initdbWasmModule: compile(initdbWasm),
  fsBundle: Effect.sync(() => Bun.file(pgliteData))
})
