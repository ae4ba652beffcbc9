import type { Scope } from "../../domain/Scope.ts"
import type { Limits } from "./Plan.ts"

// Its own module, apart from the repository, so the contract (Auth.ts) and the typed client built from it
// name the caller without reaching the SQL code.

/** Who is calling: resolved from a valid, unrevoked, unexpired key. */
export interface Caller {
  readonly keyId: string
  readonly accountId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly limits: Limits
}
