import { Schema } from "effect"

export const Scope = Schema.Literal(
  "token:risk:read",
  "wallet:risk:read",
  "deployer:history:read",
  "watch:write",
  "webhook:write"
)
export type Scope = typeof Scope.Type
export const SCOPES: ReadonlyArray<Scope> = Scope.literals
