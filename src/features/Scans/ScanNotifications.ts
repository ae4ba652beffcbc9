// The notification a scan's writer sends on commit (ScansRepo.record) and every process's latest-scan cache
// listens for (LatestScanFreshness.ts): which mints got a new scan, and each one's latest scan id.

/** Channel of the mints that got a new scan (PgClient.notify is broken in sql-pg 0.53.0; pg_notify is not). */
export const SCANS_CHANNEL = "risk_api_scans"

/**
 * A notification's payload: a JSON array of the mints, then `{"ids": [...]}`, each mint's latest scan id as
 * of the commit (a string, or null where the latest row was not written). A listener that knows only mints
 * (an older version, mid-deploy) drops the strings and passes over the object. `{"probe": nonce}` alone is a
 * listener's own check that its LISTEN is in place (Scans/LatestScanFreshness.ts).
 */
export interface ScanNotification {
  readonly mints: ReadonlyArray<{ readonly mint: string; readonly id: bigint | undefined }>
  readonly probe: string | undefined
}

// NOTIFY payloads are limited to 8000 bytes: at most 100 mints (45 characters with quotes, and an id of up
// to 21) per payload.
const PER_PAYLOAD = 100
export const notificationPayloads = (
  mints: ReadonlyArray<string>,
  latestIds: ReadonlyMap<string, string>
): ReadonlyArray<string> => {
  const distinct = [...new Set(mints)]
  const payloads: Array<string> = []
  for (let i = 0; i < distinct.length; i += PER_PAYLOAD) {
    const part = distinct.slice(i, i + PER_PAYLOAD)
    payloads.push(JSON.stringify([...part, { ids: part.map((mint) => latestIds.get(mint) ?? null) }]))
  }
  return payloads
}

export const probePayload = (nonce: string): string => JSON.stringify([{ probe: nonce }])

/** A payload as written by `notificationPayloads`, `probePayload` or an older writer (mints only); undefined when not. */
export const parseNotification = (payload: string): ScanNotification | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed)) return undefined
  const mints = parsed.filter((item): item is string => typeof item === "string")
  const extras = parsed.filter((item): item is object => typeof item === "object" && item !== null)
  if (mints.length + extras.length !== parsed.length || extras.length > 1) return undefined
  const extra: { readonly ids?: unknown; readonly probe?: unknown } = extras[0] ?? {}
  const ids: ReadonlyArray<unknown> = Array.isArray(extra.ids) ? extra.ids : []
  const probe = typeof extra.probe === "string" ? extra.probe : undefined
  return {
    mints: mints.map((mint, i) => {
      const id = ids[i]
      return { mint, id: typeof id === "string" && /^\d+$/.test(id) ? BigInt(id) : undefined }
    }),
    probe
  }
}
