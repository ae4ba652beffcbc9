import { Schema } from "effect"
import { ScanEvidence, type ScanEvidenceEncoded } from "../../domain/ScanEvidence.ts"
import type { Freshness, Verdict } from "../../domain/Verdict.ts"
import { assessToken } from "../../engines/TokenScoring/index.ts"
import { candidateFor, type DeployerBook, deployerBookOf, fallbackFor } from "./archetypes.ts"
import type { TokenProfile } from "./profile.ts"
import { type Random, seededRandom } from "./random.ts"
import { scanOf } from "./render.ts"
import { scanHistoryOf } from "./history.ts"
import { showcaseTokens, USDC_MINT } from "./showcase.ts"

export interface DemoDataset {
  readonly scans: ReadonlyArray<ScanEvidenceEncoded>
  readonly neverScanned: ReadonlyArray<string>
  readonly showcase: Readonly<Record<string, string>>
}

export interface DemoOptions {
  readonly now: Date
  readonly seed?: number
  readonly tokens?: number
}

type ScoredVerdict = Exclude<Verdict, "unknown">

const DEFAULT_DEMO_TOKENS = 300
const DEFAULT_DEMO_SEED = 42
const NEVER_SCANNED_COUNT = 10

const VERDICTS: ReadonlyArray<ScoredVerdict> = ["ok", "warn", "block"]
const FRESHNESS: ReadonlyArray<Freshness> = ["fresh", "stale", "cold"]
const CELLS = VERDICTS.flatMap((verdict) => FRESHNESS.map((freshness) => ({ verdict, freshness })))
const SHOWCASE_SPECIALS = 6
export const MIN_DEMO_TOKENS = SHOWCASE_SPECIALS + CELLS.length
const MAX_DRAWS = 40

const SECOND_MS = 1000
const MINUTE_MS = 60 * SECOND_MS

// Fresh scans are at most 2 minutes old, so a freshly seeded demo stays fresh for about 3 minutes.
const scanAgeMs = (random: Random, freshness: Freshness): number => {
  switch (freshness) {
    case "fresh":
      return random.int(0, 120) * SECOND_MS
    case "stale":
      return random.int(6, 55) * MINUTE_MS
    case "cold":
      return random.int(2 * 60, 14 * 24 * 60) * MINUTE_MS
  }
}

const decodeScan = Schema.decodeUnknownSync(ScanEvidence)

const verdictOfScan = (scan: ScanEvidenceEncoded): ScoredVerdict => assessToken(decodeScan(scan)).verdict

const drawCell = (random: Random): { verdict: ScoredVerdict; freshness: Freshness } => {
  const roll = random.next()
  const verdict: ScoredVerdict = roll < 0.5 ? "ok" : roll < 0.8 ? "warn" : "block"
  const freshness = random.pick<Freshness>(["fresh", "fresh", "stale", "cold", "cold"])
  return { verdict, freshness }
}

const profileFor = (
  random: Random,
  book: DeployerBook,
  mint: string,
  target: ScoredVerdict,
  latestMs: number
): TokenProfile => {
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const candidate = candidateFor(target, random, mint, book)
    if (verdictOfScan(scanOf(candidate, { latestMs, scannedAtMs: latestMs, drift: 1 })) === target) return candidate
  }
  return fallbackFor(target, random, mint, book)
}

const mintFactory = (random: Random): (() => string) => {
  const taken = new Set<string>([USDC_MINT])
  return () => {
    let mint = random.address()
    while (taken.has(mint)) mint = random.address()
    taken.add(mint)
    return mint
  }
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

const byScanTime = (a: ScanEvidenceEncoded, b: ScanEvidenceEncoded): number =>
  compareText(a.scannedAt, b.scannedAt) || compareText(a.mint, b.mint)

export const generateDemoDataset = (options: DemoOptions): DemoDataset => {
  const tokens = options.tokens ?? DEFAULT_DEMO_TOKENS
  if (!Number.isInteger(tokens) || tokens < MIN_DEMO_TOKENS) {
    throw new RangeError(`tokens must be an integer >= ${MIN_DEMO_TOKENS}, got ${tokens}`)
  }
  const random = seededRandom(options.seed ?? DEFAULT_DEMO_SEED)
  const nowMs = options.now.getTime()
  const newMint = mintFactory(random)
  const book = deployerBookOf(random)
  const showcase: Record<string, string> = {}
  const scans: Array<ScanEvidenceEncoded> = []

  for (const special of showcaseTokens(random, book, newMint)) {
    const latestMs = nowMs - scanAgeMs(random, special.freshness)
    scans.push(...scanHistoryOf(random, special.profile, latestMs, special.before))
    showcase[special.key] = special.profile.mint
  }

  // The first tokens fill every verdict x freshness cell; the rest are drawn.
  for (let index = 0; index < tokens - SHOWCASE_SPECIALS; index++) {
    const cell = CELLS[index] ?? drawCell(random)
    const latestMs = nowMs - scanAgeMs(random, cell.freshness)
    const profile = profileFor(random, book, newMint(), cell.verdict, latestMs)
    scans.push(...scanHistoryOf(random, profile, latestMs, null))
    const key = `${cell.verdict}_${cell.freshness}`
    if (showcase[key] === undefined) showcase[key] = profile.mint
  }

  const neverScanned = Array.from({ length: NEVER_SCANNED_COUNT }, newMint)
  showcase.never_scanned = neverScanned[0] ?? ""
  return { scans: scans.sort(byScanTime), neverScanned, showcase }
}
