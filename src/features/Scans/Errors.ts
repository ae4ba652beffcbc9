import { Schema } from "effect"
import { apiError } from "../../domain/Errors.ts"

export class NotScanned extends Schema.TaggedError<NotScanned>()(
  "NotScanned",
  { message: Schema.String },
  apiError("not_scanned", 404, "The mint has never been scanned; the message gives the rescan URL. Not charged.")
) {}

/** Where a mint's scan is queued (POST): the risk-check routes and NotScanned name it. */
export const rescanUrlOf = (address: string): string => `/api/risk-check/${encodeURIComponent(address)}/rescan`

export const notScanned = (mint: string) =>
  new NotScanned({ message: `${mint} has never been scanned; POST ${rescanUrlOf(mint)} to queue a scan.` })
