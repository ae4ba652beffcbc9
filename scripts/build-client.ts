// Builds the typed client (the `risk-evidence-api-client` package of client/), two ES modules for Node, browsers and Bun:
// - the default entry (index.js): the Promise client with effect and the contract bundled in (tree-shaken, no runtime
//   dependency), its declarations (index.d.ts) written from the contract's schemas by client-declarations.ts;
// - `./effect` (effect.js): the Effect client with effect and @effect/platform left to the installer (optional peers),
//   its declarations from tsc whose relative imports name the .js a resolver finds next to each .d.ts.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clientDeclarations } from "./client-declarations.ts"

// From the repository root, whoever runs it (`npm run build:client`, or client/'s prepack).
const root = new URL("..", import.meta.url).pathname
process.chdir(root)
const out = "client/dist"
rmSync(out, { recursive: true, force: true })

const build = async (entry: string, naming: string, external: ReadonlyArray<string>, minify: boolean) => {
  const bundle = await Bun.build({
    entrypoints: [entry],
    outdir: out,
    naming,
    target: "node",
    format: "esm",
    minify,
    external: [...external]
  })
  if (!bundle.success) throw new AggregateError(bundle.logs, `bun build of the client (${naming}) failed`)
}
await build("src/interfaces/Client/promise.ts", "index.js", [], true)
await build("src/interfaces/Client/index.ts", "effect.js", ["effect", "@effect/platform", "@effect/platform/*"], false)
writeFileSync(join(out, "index.d.ts"), clientDeclarations())

const tsc = Bun.spawnSync(["tsc", "-p", "tsconfig.client.json"], { stdout: "inherit", stderr: "inherit" })
if (tsc.exitCode !== 0) process.exit(tsc.exitCode ?? 1)

const declarations = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? declarations(join(dir, entry.name))
      : entry.name.endsWith(".d.ts")
        ? [join(dir, entry.name)]
        : []
  )
for (const file of declarations(join(out, "types"))) {
  const text = readFileSync(file, "utf8")
  writeFileSync(
    file,
    text.replace(/(from\s+"\.{1,2}\/[^"]*)\.ts"/g, '$1.js"').replace(/(import\("\.{1,2}\/[^"]*)\.ts"\)/g, '$1.js")')
  )
}
console.error(`client built in ${out}: index.js with index.d.ts, effect.js with types/interfaces/Client/index.d.ts`)
