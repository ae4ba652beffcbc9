import type { WalletEvidence, WalletSource } from "./types.ts"

// A source contributed when it holds evidence about the wallet or about a counterparty of its exposures.
export const sourcesOf = (evidence: WalletEvidence): ReadonlyArray<WalletSource> => {
  const counterparties = evidence.exposures.map((exposure) => exposure.counterpartyAddress)
  const labelled =
    evidence.labels.length > 0 ||
    counterparties.some((address) => (evidence.counterpartyLabels.get(address)?.length ?? 0) > 0)
  const scanned =
    evidence.deployedTokens.length > 0 ||
    counterparties.some((address) => (evidence.counterpartyLaunches.get(address)?.launches ?? 0) > 0)
  return [
    ...(labelled ? ["wallet_labels" as const] : []),
    ...(evidence.exposures.length > 0 ? ["wallet_exposures" as const] : []),
    ...(scanned ? ["token_scans" as const] : [])
  ]
}

export const hasEvidenceOf = (evidence: WalletEvidence): boolean =>
  evidence.labels.length > 0 || evidence.exposures.length > 0 || evidence.deployedTokens.length > 0
