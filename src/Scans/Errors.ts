import { Schema } from "effect"
import { apiError } from "../Domain/Errors.ts"

export class NotScanned extends Schema.TaggedError<NotScanned>()(
  "NotScanned",
  { message: Schema.String },
  apiError("not_scanned", 404, "The mint has never been scanned; the message gives the rescan URL. Not charged.")
) {}
