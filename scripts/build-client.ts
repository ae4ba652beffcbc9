// Builds the typed client (the `risk-evidence-api-client` package of client/): one ES module for Node, browsers and Bun with effect and
// @effect/platform left to the installer (the rest of the contract's imports are bundled), and declarations
// from tsc whose relative imports name the .js a resolver finds next to each .d.ts.
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

// From the repository root, whoever runs it (`npm run build:client`, or client/'s prepack).
const root = new URL("..", import.meta.url).pathname
process.chdir(root)
const out = "client/dist"
rmSync(out, { recursive: true, force: true })

const bundle = await Bun.build({
  entrypoints: ["src/interfaces/Client/index.ts"],
  outdir: out,
  target: "node",
  format: "esm",
  external: ["effect", "@effect/platform", "@effect/platform/*"]
})
if (!bundle.success) throw new AggregateError(bundle.logs, "bun build of the client failed")

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
console.error(`client built in ${out}: index.js and types/interfaces/Client/index.d.ts`)
