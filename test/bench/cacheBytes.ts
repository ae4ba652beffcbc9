// `bun test/bench/cacheBytes.ts [--entries N]`: the heap a latest-scan cache entry holds, measured, next to
// the estimate the cache counts against SCAN_CACHE_MAX_BYTES (entryBytesOf in src/features/Scans/LatestScanCache.ts).
// Entries are built as the cache holds them: evidence parsed from the JSON the database sends, then
// answered once (its assessment and one age band of pre-serialized verdict fragments stay beside it).
import { parseArgs } from "node:util"
import { heapSize } from "bun:jsc"
import { Schema } from "effect"
import { generateDemoDataset } from "../../src/features/Demo/generate.ts"
import { ScanEvidence } from "../../src/domain/ScanEvidence.ts"
import { checkAnswer } from "../../src/features/RiskCheck/Answer.ts"
import { entryBytesOf } from "../../src/features/Scans/LatestScanCache.ts"
import type { StoredScan } from "../../src/features/Scans/ScansRepo.ts"
import { randomMint } from "./dataset.ts"

const { values } = parseArgs({ options: { entries: { type: "string", default: "20000" } } })
const entries = Number(values.entries)
const decode = Schema.decodeUnknownSync(ScanEvidence)
const encode = Schema.encodeSync(ScanEvidence)
const templates = generateDemoDataset({ now: new Date(), tokens: 300 }).scans.map((scan) =>
  JSON.stringify(encode(decode(scan)))
)

const measure = (answered: boolean) => {
  Bun.gc(true)
  const before = heapSize()
  const held = new Map<string, { scan: StoredScan; bytes: number }>()
  let estimated = 0
  for (let i = 0; i < entries; i++) {
    const mint = randomMint()
    const scan: StoredScan = {
      id: String(i),
      evidence: JSON.parse(templates[i % templates.length]!.replace(/"mint":"[^"]+"/, `"mint":"${mint}"`))
    }
    if (answered) checkAnswer(mint, scan, performance.now())
    const bytes = entryBytesOf(scan)
    estimated += bytes
    held.set(mint, { scan, bytes })
  }
  Bun.gc(true)
  const measured = heapSize() - before
  return { measured: measured / held.size, estimated: estimated / held.size }
}

const bare = measure(false)
const answered = measure(true)
console.log(`${entries.toLocaleString("en-US")} entries of demo evidence (${templates.length} templates)`)
console.log(`  evidence only:                     ${bare.measured.toFixed(0)} bytes of heap an entry`)
console.log(
  `  answered once (assessment, fragments): ${answered.measured.toFixed(0)} bytes an entry; the cache counts ${answered.estimated.toFixed(0)}`
)
