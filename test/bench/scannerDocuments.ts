import { writeFileSync } from "node:fs"
import { Schema } from "effect"
import { ScanEvidenceV2 } from "../../src/domain/EvidenceV2.ts"
import { scanMint } from "../../src/workers/Scanner/Scan.ts"
import { benchScanner } from "./benchScanner.ts"

// Scanner-shaped v2 documents for the history bench's storage figures (`bun test/bench/history.ts --documents
// FILE`): `bun test/bench/scannerDocuments.ts FILE [MINTS]` scans every mint of the scanner bench's LiteSVM world
// (test/bench/scannerRpc.ts: pools, LP holders, locks, holders, metadata) with the insiders stage on, and
// writes the documents as the scanner hands them to ScansRepo.record (encoded), a JSON array. The generated
// demo evidence upgraded to v2 is a third of a scanner's document in size; these are what the scanner writes.
const encode = Schema.encodeSync(ScanEvidenceV2)

const scanAll = async (file: string) => {
  const { mints, url, referencePool } = JSON.parse(process.env.BENCH_RPC ?? "{}") as {
    mints: ReadonlyArray<string>
    url: string
    referencePool: string
  }
  const { client, settings } = benchScanner({ url, referencePool, insiders: true })
  const documents = []
  for (const mint of mints) {
    const { counter, rpc } = client.forScan(128)
    documents.push(encode(await scanMint(rpc, counter, mint as never, settings)))
  }
  writeFileSync(file, JSON.stringify(documents))
  const partial = documents.filter((document) => document.scanDepth !== "full").length
  console.log(`${documents.length} documents written to ${file} (${partial} partial)`)
}

if (import.meta.main) {
  const [file, mints = "30"] = process.argv.slice(2)
  if (file === undefined) {
    console.error("usage: bun test/bench/scannerDocuments.ts FILE [MINTS]")
    process.exit(1)
  }
  if (process.env.BENCH_RPC !== undefined) {
    await scanAll(file)
    process.exit(0)
  }
  // The world in a process of its own (its first stdout line is BENCH_RPC), the scans in another.
  const world = Bun.spawn([process.execPath, new URL("scannerRpc.ts", import.meta.url).pathname], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, MINTS: mints }
  })
  const reader = world.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  const scan = Bun.spawn([process.execPath, import.meta.path, file], {
    env: { ...process.env, BENCH_RPC: text.split("\n")[0]!.trim() },
    stdout: "inherit",
    stderr: "inherit"
  })
  const code = await scan.exited
  world.kill()
  process.exit(code)
}
