import { Schema } from "effect"

// The building blocks of evidence v2 (EvidenceV2.ts, EvidenceInsiders.ts): a fact that was observed, could not be
// observed, or does not apply, and the number and text shapes its values take.

const Reason = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))

/** A fact: its value when observed, otherwise why not. */
export const Fact = <S extends Schema.Schema.Any>(value: S) =>
  Schema.Union(
    Schema.Struct({ status: Schema.Literal("observed"), value }),
    Schema.Struct({ status: Schema.Literal("not_observed", "not_applicable"), reason: Reason })
  )

export type Fact<A> =
  | { readonly status: "observed"; readonly value: A }
  | { readonly status: "not_observed" | "not_applicable"; readonly reason: string }

export const observed = <A>(value: A): Fact<A> => ({ status: "observed", value })
export const notObserved = (reason: string): Fact<never> => ({ status: "not_observed", reason })
export const notApplicable = (reason: string): Fact<never> => ({ status: "not_applicable", reason })
/** The value of an observed fact, else null. */
/** The value of an observed fact, else null. */
export const valueOfFact = <A>(fact: Fact<A>): A | null => (fact.status === "observed" ? fact.value : null)

export const Percent = Schema.Number.pipe(Schema.between(0, 100))
export const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())
export const NonNegative = Schema.Number.pipe(Schema.nonNegative(), Schema.finite())
/** A u64 in base units, as decimal digits (JSON numbers lose precision above 2^53). */
export const U64 = Schema.String.pipe(Schema.pattern(/^(0|[1-9]\d{0,19})$/))
export const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))
