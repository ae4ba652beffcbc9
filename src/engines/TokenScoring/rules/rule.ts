import type { Flag } from "../flags.ts"
import type { Facet, HardCap } from "../model.ts"
import type { Observed } from "../observed.ts"
import type { Finding } from "../types.ts"

export type Rule = (observed: Observed) => Finding | null

export interface FindingFields {
  readonly rule: string
  readonly facet: Facet
  readonly points: number
  readonly reason: string
  readonly risk: string
  readonly flag?: Flag | null
  readonly cap?: HardCap | null
}

export const finding = (fields: FindingFields): Finding => ({
  rule: fields.rule,
  facet: fields.facet,
  points: fields.points,
  reason: fields.reason,
  risk: fields.risk,
  flag: fields.flag ?? null,
  cap: fields.cap ?? null
})

export const shortAddress = (address: string): string => `${address.slice(0, 4)}…${address.slice(-4)}`
