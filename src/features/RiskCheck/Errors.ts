import { Schema } from "effect"
import { apiError } from "../../domain/Errors.ts"

export class BatchTooLarge extends Schema.TaggedError<BatchTooLarge>()(
  "BatchTooLarge",
  { message: Schema.String },
  apiError("batch_too_large", 400, "More than 50 addresses in one batch.")
) {}
