// Imported as files so `bun build --compile` embeds them; a compiled binary cannot find them otherwise.
import initdbWasm from "../../../node_modules/@electric-sql/pglite/dist/initdb.wasm" with { type: "file" }
import pgliteData from "../../../node_modules/@electric-sql/pglite/dist/pglite.data" with { type: "file" }
import pgliteWasm from "../../../node_modules/@electric-sql/pglite/dist/pglite.wasm" with { type: "file" }

const compile = async (path: string) => WebAssembly.compile(await Bun.file(path).arrayBuffer())

/**
 * PGlite's WebAssembly modules and file-system bundle, from wherever this program carries them. Plain
 * promises, no Effect: this runs in the embedded database's thread, whose every import is memory.
 */
export const loadPgliteAssets = async () => {
  const [pgliteWasmModule, initdbWasmModule] = await Promise.all([compile(pgliteWasm), compile(initdbWasm)])
  return { pgliteWasmModule, initdbWasmModule, fsBundle: Bun.file(pgliteData) }
}
