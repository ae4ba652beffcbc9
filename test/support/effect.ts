import { afterAll, beforeAll, test } from "bun:test"
import { type Effect, type Layer, ManagedRuntime } from "effect"

/**
 * One runtime per test file over the layer under test (a database starts once per file, not per test),
 * and `it` to write a test whose body is an Effect.
 */
export const runtimeFor = <R, E>(layer: Layer.Layer<R, E>) => {
  const runtime = ManagedRuntime.make(layer)
  // Building the layer (a database start, migrations) is not part of any one test's time.
  beforeAll(() => runtime.runtime(), 120_000)
  afterAll(() => runtime.dispose())
  return {
    runtime,
    run: <A, E2>(program: Effect.Effect<A, E2, R>): Promise<A> => runtime.runPromise(program),
    it: <A, E2>(name: string, program: () => Effect.Effect<A, E2, R>, timeout?: number) =>
      test(
        name,
        async () => {
          await runtime.runPromise(program())
        },
        timeout
      )
  }
}
