import type { Address } from "@solana/kit"
import type { Extension } from "@solana-program/token-2022"
import { notObserved, observed, type ScanEvidenceV2 } from "../../../domain/EvidenceV2.ts"
import { impersonatedBy } from "../../../engines/TokenScoring/impersonation.ts"
import { decodeMetaplexMetadata } from "../Metaplex.ts"
import { METAPLEX_METADATA_PROGRAM, metaplexMetadataAddress } from "../Programs.ts"
import type { AccountInfos } from "./Accounts.ts"
import { type Gaps, ours } from "./Context.ts"
import { findExtension } from "./Extensions.ts"

// Stage "metadata": Token-2022's own TokenMetadata extension first, else the Metaplex metadata account,
// whose address (a PDA of the mint) joins the first round's getMultipleAccounts.

/** Round 1: the Metaplex metadata PDA of the mint. */
export const metadataAccountOf = (mint: Address): Promise<Address> => metaplexMetadataAddress(mint)

export const metadataOf = (
  mint: Address,
  extensions: ReadonlyArray<Extension>,
  metadataAddress: Address,
  infos: AccountInfos,
  gaps: Gaps
): ScanEvidenceV2["metadata"] => {
  const tokenMetadata = findExtension(extensions, "TokenMetadata")
  if (tokenMetadata !== undefined) {
    return observed({
      source: "token-2022",
      name: tokenMetadata.name.slice(0, 200),
      symbol: tokenMetadata.symbol.slice(0, 50),
      uri: tokenMetadata.uri.slice(0, 500),
      mutable: tokenMetadata.updateAuthority.__option === "Some",
      updateAuthority:
        tokenMetadata.updateAuthority.__option === "Some" ? ours(tokenMetadata.updateAuthority.value) : null
    })
  }
  const metaplexInfo = infos.get(metadataAddress) ?? null
  if (metaplexInfo === null) return notObserved("no Metaplex metadata account and no TokenMetadata extension")
  if (metaplexInfo.owner !== METAPLEX_METADATA_PROGRAM)
    return gaps.missed("metadata", `metadata account owned by ${metaplexInfo.owner}, not the Metaplex program`)
  const meta = decodeMetaplexMetadata(metaplexInfo.data)
  if (meta === undefined || meta.mint !== mint)
    return gaps.missed("metadata", "Metaplex account does not decode for this mint")
  return observed({
    source: "metaplex" as const,
    name: meta.name.slice(0, 200),
    symbol: meta.symbol.slice(0, 50),
    uri: meta.uri.slice(0, 500),
    mutable: meta.isMutable,
    updateAuthority: ours(meta.updateAuthority)
  })
}

/**
 * The copycat check, as an observed fact: the name or symbol confusable with an issuer-verified token's
 * under another mint (the same check the scoring model's impersonation rule makes, src/engines/TokenScoring/
 * impersonation.ts, against src/domain/issuers.json). Observed null: checked, not a copycat. Not observed
 * when the metadata was not read, since there is nothing to compare.
 */
export const copycatOf = (mint: Address, metadata: ScanEvidenceV2["metadata"]): ScanEvidenceV2["copycatOf"] => {
  if (metadata.status !== "observed") return notObserved("metadata not observed: no name or symbol to compare")
  const imitated = impersonatedBy(mint, metadata.value.name, metadata.value.symbol)
  return observed(imitated === null ? null : imitated.symbol)
}
