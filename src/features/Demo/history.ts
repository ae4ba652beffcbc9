import type { ScanEvidenceEncoded } from "../../domain/ScanEvidence.ts"
import type { TokenProfile } from "./profile.ts"
import type { Random } from "./random.ts"
import { scanOf } from "./render.ts"

const HOUR_MS = 60 * 60 * 1000
const MIN_GAP_MS = 10 * 60 * 1000

// Earlier scans a few hours or days apart, all after the token was created; a token's fate (outcome) is
// only seen by its latest scan.
const earlierScanTimes = (
  random: Random,
  profile: TokenProfile,
  latestMs: number,
  atLeast: number
): ReadonlyArray<number> => {
  const gaps = Array.from({ length: random.int(atLeast, 3) }, () => random.float(2, 72) * HOUR_MS)
  const span = gaps.reduce((total, gap) => total + gap, 0)
  const room = profile.ageHours * HOUR_MS * 0.8
  const scale = span > room ? room / span : 1
  const scaled = gaps.map((gap) => gap * scale)
  if (scaled.some((gap) => gap < MIN_GAP_MS)) return []
  return scaled.map((_, index) => latestMs - scaled.slice(0, index + 1).reduce((total, gap) => total + gap, 0))
}

export const scanHistoryOf = (
  random: Random,
  profile: TokenProfile,
  latestMs: number,
  before: TokenProfile | null
): ReadonlyArray<ScanEvidenceEncoded> => {
  const earlier = before ?? { ...profile, outcome: null }
  // A token whose earlier state differs (a rug pull) gets at least one scan from before.
  const older = earlierScanTimes(random, profile, latestMs, before === null ? 0 : 1).map((scannedAtMs) =>
    scanOf(earlier, { latestMs, scannedAtMs, drift: random.float(0.6, 1.4) })
  )
  return [...older.reverse(), scanOf(profile, { latestMs, scannedAtMs: latestMs, drift: 1 })]
}
