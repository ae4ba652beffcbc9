import { COPYCAT_POINTS, MISSING_NAME_OR_SYMBOL_POINTS, MUTABLE_METADATA_POINTS } from "../model.ts"
import { finding, type Rule } from "./rule.ts"

export const mutableMetadata: Rule = ({ evidence }) =>
  evidence.metadata.mutable === true
    ? finding({
      rule: "mutable_metadata",
      facet: "metadata",
      points: MUTABLE_METADATA_POINTS,
      reason: "metadata.mutable is true",
      risk: "Metadata is mutable: name, symbol and image can be changed",
      flag: "mutable_metadata"
    })
    : null

// null means the scanner did not read the metadata; a blank string means the token has none.
const isBlank = (value: string | null): boolean => value !== null && value.trim() === ""

export const missingNameOrSymbol: Rule = ({ evidence }) => {
  const missing = [isBlank(evidence.name) ? "name" : null, isBlank(evidence.symbol) ? "symbol" : null]
    .filter((field) => field !== null)
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

export const copycat: Rule = ({ evidence }) => {
  const original = evidence.metadata.copycatOf
  if (original === null || original.trim() === "") return null
  return finding({
    rule: "copycat",
    facet: "metadata",
    points: COPYCAT_POINTS,
    reason: `metadata.copycatOf is ${JSON.stringify(original)}`,
    risk: `Imitates the well-known token ${original}`,
    flag: "copycat"
  })
}
