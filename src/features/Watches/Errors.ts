import { Schema } from "effect"
import { apiError } from "../../domain/Errors.ts"

export class WatchNotFound extends Schema.TaggedError<WatchNotFound>()(
  "WatchNotFound",
  { message: Schema.String },
  apiError(
    "watch_not_found",
    404,
    "No watch with this id belongs to the calling account (other accounts' watches are not visible)."
  )
) {}

export class WatchLimitReached extends Schema.TaggedError<WatchLimitReached>()(
  "WatchLimitReached",
  { message: Schema.String },
  apiError(
    "watch_limit_reached",
    409,
    "The account has the maximum number of unexpired watches; delete one or let it expire."
  )
) {}
