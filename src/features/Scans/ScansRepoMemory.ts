import { Effect, Layer, Option } from "effect"
import type { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { upgradeV1 } from "../../domain/EvidenceUpgrade.ts"
import { epochMillisOf } from "../../domain/ScanEvidence.ts"
import { isV2, prepare, ScansRepo, type StoredScan, toStored } from "./ScansRepo.ts"

/** In-memory double with the same behaviour, for tests of code above the repository. */
export const ScansRepoMemory = Layer.sync(ScansRepo, () => {
  const byMint = new Map<string, Array<StoredScan>>()
  const documents = new Map<string, ScanEvidenceV2>()
  const prices = new Map<string, number | null>()
  const hashes = new Set<string>()
  let nextId = 1
  const latestOf = (mint: string): StoredScan | undefined =>
    byMint
      .get(mint)
      ?.reduce<StoredScan | undefined>(
        (best, scan) =>
          best === undefined || epochMillisOf(scan.evidence.scannedAt) >= epochMillisOf(best.evidence.scannedAt)
            ? scan
            : best,
        undefined
      )
  const ordered = (mint: string) =>
    [...(byMint.get(mint) ?? [])].sort(
      (a, b) => epochMillisOf(a.evidence.scannedAt) - epochMillisOf(b.evidence.scannedAt) || Number(a.id) - Number(b.id)
    )
  // The latest scan with its 24 h liquidity peak and price reference, as the SQL repository reads them.
  const newest = (mint: string): StoredScan | undefined => {
    const latest = latestOf(mint)
    if (latest === undefined) return undefined
    const at = epochMillisOf(latest.evidence.scannedAt)
    const day = ordered(mint).filter((scan) => {
      const t = epochMillisOf(scan.evidence.scannedAt)
      return t < at && t >= at - 24 * 3_600_000
    })
    const peaks = day.flatMap((scan) => {
      const usd = scan.evidence.liquidity.liquidityUsd ?? scan.evidence.market.liquidityUsd
      return usd === null ? [] : [usd]
    })
    const price = prices.get(latest.id) ?? null
    const before =
      price === null ? null : (day.map((scan) => prices.get(scan.id) ?? null).find((p) => p !== null) ?? null)
    return toStored({
      id: latest.id,
      mint,
      evidence: latest.evidence,
      peak: peaks.length === 0 ? null : Math.max(...peaks),
      price,
      price_before: before
    })
  }
  const newestOf = (mints: ReadonlyArray<string>) => {
    const found = new Map<string, StoredScan>()
    for (const mint of mints) {
      const scan = newest(mint)
      if (scan !== undefined) found.set(mint, scan)
    }
    return found
  }
  return ScansRepo.make({
    history: (mint, options) =>
      Effect.sync(() => {
        const all = ordered(mint)
        const since = options.since === null ? null : epochMillisOf(options.since)
        const atEntry =
          since === null ? -1 : all.findLastIndex((scan) => epochMillisOf(scan.evidence.scannedAt) <= since)
        const from =
          since === null
            ? 0
            : atEntry === -1
              ? all.findIndex((scan) => epochMillisOf(scan.evidence.scannedAt) >= since)
              : atEntry
        return (from === -1 ? [] : all.slice(from)).slice(-options.limit)
      }),
    latest: (mint) => Effect.sync(() => Option.fromNullable(newest(mint))),
    latestMany: (mints) => Effect.sync(() => newestOf(mints)),
    latestVerdicts: (mints, whole = []) => Effect.sync(() => newestOf([...mints, ...whole])),
    record: (scans) =>
      Effect.sync(() => {
        let inserted = 0
        for (const scan of scans) {
          const prepared = prepare(scan)
          if (hashes.has(prepared.hash)) continue
          hashes.add(prepared.hash)
          inserted++
          const id = String(nextId++)
          documents.set(id, isV2(scan) ? scan : upgradeV1(scan))
          prices.set(id, prepared.priceUsd)
          const list = byMint.get(scan.mint) ?? []
          list.push({ id, evidence: prepared.view })
          byMint.set(scan.mint, list)
        }
        return { inserted, duplicates: scans.length - inserted }
      }),
    latestDocument: (mint) =>
      Effect.sync(() =>
        Option.flatMap(Option.fromNullable(latestOf(mint)), (scan) => Option.fromNullable(documents.get(scan.id)))
      )
  })
})
