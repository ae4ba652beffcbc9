import { Schema } from "effect"
import { Address } from "./Address.ts"

/** One line of a community list import: this list includes this mint (docs/scan-evidence.md, "Listings"). */
export const ListingLine = Schema.Struct({
  mint: Address,
  list: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)).annotations({
    description: "e.g. jupiter-strict, coingecko."
  }),
  source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)).annotations({
    description: "Where the list was taken from (URL and date)."
  })
}).annotations({ identifier: "ListingLine", parseOptions: { onExcessProperty: "error" } })
export type ListingLine = typeof ListingLine.Type
