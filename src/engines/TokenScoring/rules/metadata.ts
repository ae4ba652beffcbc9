import {
  CAPS,
  COPYCAT_POINTS,
  IMPERSONATION_POINTS,
  LISTED_COPYCAT_POINTS,
  LISTED_MUTABLE_METADATA_POINTS,
  MISSING_NAME_OR_SYMBOL_POINTS,
  MUTABLE_METADATA_POINTS
} from "../model.ts"
import type { ScanEvidence } from "../../../domain/ScanEvidence.ts"
import { finding, type Rule } from "./rule.ts"

// Listed on a community list the operator imported (not issuer verification): the list's curators vouch
// for the metadata, so a mutable one or a copycat label costs less.
const listedOn = (evidence: ScanEvidence): string | null => evidence.listed?.[0]?.list ?? null

export const mutableMetadata: Rule = ({ evidence }) => {
  if (evidence.metadata.mutable !== true) return null
  const list = listedOn(evidence)
  return finding({
    rule: "mutable_metadata",
    facet: "metadata",
    points: list === null ? MUTABLE_METADATA_POINTS : LISTED_MUTABLE_METADATA_POINTS,
    reason: list === null ? "metadata.mutable is true" : `metadata.mutable is true; reduced: listed on ${list}`,
    risk: "Metadata is mutable: name, symbol and image can be changed",
    flag: "mutable_metadata"
  })
}

export const impersonation: Rule = ({ evidence, impersonates }) => {
  if (impersonates === null) return null
  const list = listedOn(evidence)
  return finding({
    rule: "impersonation",
    facet: "metadata",
    points: IMPERSONATION_POINTS,
    reason:
      `name or symbol confusable with ${impersonates.symbol} (${impersonates.mint})` +
      (list === null ? "" : `; listed on ${list}, so not capped`),
    risk: `Impersonates ${impersonates.symbol} of ${impersonates.issuer} (the real mint is ${impersonates.mint})`,
    flag: "impersonation",
    cap: list === null ? CAPS.impersonation : null
  })
}

// null means the scanner did not read the metadata; a blank string means the token has none.
const isBlank = (value: string | null): boolean => value !== null && value.trim() === ""

export const missingNameOrSymbol: Rule = ({ evidence }) => {
  const missing = [isBlank(evidence.name) ? "name" : null, isBlank(evidence.symbol) ? "symbol" : null].filter(
    (field) => field !== null
  )
  if (missing.length === 0) return null
  return finding({
    rule: "missing_name_or_symbol",
    facet: "metadata",
    points: MISSING_NAME_OR_SYMBOL_POINTS,
    reason: `${missing.join(" and ")} blank`,
    risk: `Token has no ${missing.join(" or ")}`,
    flag: "missing_name_or_symbol"
  })
}

// 2.1: the scanner's copycat check is the impersonation check (src/workers/Scanner/stages/Metadata.ts), so a
// scanned impersonator carries both: one fact, counted once at the larger deduction. When impersonation fires
// (-30, and its cap unless listed: never less than the copycat's -25 or -10) the copycat label adds nothing.
export const copycat: Rule = ({ evidence, impersonates }) => {
  const original = evidence.metadata.copycatOf
  if (original === null || original.trim() === "" || impersonates !== null) return null
  const list = listedOn(evidence)
  return finding({
    rule: "copycat",
    facet: "metadata",
    points: list === null ? COPYCAT_POINTS : LISTED_COPYCAT_POINTS,
    reason: `metadata.copycatOf is ${JSON.stringify(original)}${list === null ? "" : `; reduced: listed on ${list}`}`,
    risk: `Imitates the well-known token ${original}`,
    flag: "copycat"
  })
}
