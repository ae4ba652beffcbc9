import { Data } from "effect"

/** Ends an import with exit code 1; the invalid lines were already reported. */
export class ImportFailed extends Data.TaggedError("ImportFailed") {}
