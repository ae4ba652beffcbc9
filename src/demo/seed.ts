import { SqlClient } from "@effect/sql"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { DatabaseConfig, isEmbedded } from "../Config.ts"
import { ScanEvidence } from "../domain/ScanEvidence.ts"
import { ScanCache } from "../services/ScanCache.ts"
import { generateDemoDataset } from "./generate.ts"

interface SeedOptions {
  readonly tokens: number
  readonly seed: number
}

const decodeScans = Schema.decodeUnknownSync(Schema.Array(ScanEvidence))

const dataset = (options: SeedOptions) =>
  Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) =>
    generateDemoDataset({ now: new Date(now), seed: options.seed, tokens: options.tokens }))

export const seedDemo = {
  store: (options: SeedOptions) =>
    Effect.gen(function*() {
      const { scans } = yield* dataset(options)
      const result = yield* ScanCache.record(decodeScans(scans))
      return result.inserted
    }),
  print: (options: SeedOptions) =>
    Effect.gen(function*() {
      const { scans } = yield* dataset(options)
      for (const scan of scans) yield* Console.log(JSON.stringify(scan))
    })
}

// A new embedded database starts with the demo dataset so `npm start` answers something real;
// SEED_DEMO=true/false overrides, and a database that already holds scans is never touched.
export const SeedDemoOnStart = Layer.effectDiscard(
  Effect.gen(function*() {
    const config = yield* DatabaseConfig
    const wanted = Option.getOrElse(config.seedDemo, () => isEmbedded(config))
    if (!wanted) return
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ present: boolean }>`select exists (select 1 from scans) as present`
    if (row?.present) return
    const inserted = yield* seedDemo.store({ tokens: 300, seed: 42 })
    yield* Effect.logInfo(`seeded ${inserted} demo scans into the empty database`)
  }).pipe(Effect.orDie)
)
