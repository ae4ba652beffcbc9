import { SqlClient } from "@effect/sql"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { DatabaseConfig, isEmbedded } from "../../platform/Sql/Config.ts"
import { ScanEvidence } from "../../domain/ScanEvidence.ts"
import { WalletEvidenceLine } from "../../domain/WalletEvidence.ts"
import { ScansRepo } from "../Scans/ScansRepo.ts"
import { anyScanStatement } from "../Scans/ScanStatements.ts"
import { WalletRepo } from "../WalletRisk/WalletRepo.ts"
import { generateDemoDataset } from "./generate.ts"
import { drainingPositionScans } from "./positions.ts"
import { generateDemoWallets } from "./wallets.ts"

interface SeedOptions {
  readonly tokens: number
  readonly seed: number
}

const decodeScans = Schema.decodeUnknownSync(Schema.Array(ScanEvidence))
const decodeWalletLines = Schema.decodeUnknownSync(Schema.Array(WalletEvidenceLine))

const demo = (options: SeedOptions) =>
  Effect.map(
    Effect.clockWith((clock) => clock.currentTimeMillis),
    (millis) => {
      const now = new Date(millis)
      const dataset = generateDemoDataset({ now, seed: options.seed, tokens: options.tokens })
      const wallets = generateDemoWallets({ now, dataset })
      return { scans: [...dataset.scans, ...wallets.scans, ...drainingPositionScans(now)], walletLines: wallets.lines }
    }
  )

// The embedded database's socket gathers a statement's bytes by copying all it holds so far for every chunk
// it receives: one statement of the whole demo (5 MB) left 600 MB of garbage and 1.8 s in the server. In
// statements of SEED_BATCH scans (about 330 KB) that is a few megabytes; one transaction still holds them all.
const SEED_BATCH = 50

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

export const seedDemo = {
  store: (options: SeedOptions) =>
    Effect.gen(function* () {
      const { scans, walletLines } = yield* demo(options)
      const sql = yield* SqlClient.SqlClient
      const scansRepo = yield* ScansRepo
      const walletRepo = yield* WalletRepo
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          let inserted = 0
          for (const chunk of chunksOf(decodeScans(scans), SEED_BATCH))
            inserted += (yield* scansRepo.record(chunk)).inserted
          const wallets = yield* walletRepo.record(decodeWalletLines(walletLines))
          return { scans: inserted, walletRecords: wallets.stored }
        })
      )
    }),
  print: (options: SeedOptions & { readonly wallets: boolean }) =>
    Effect.gen(function* () {
      const { scans, walletLines } = yield* demo(options)
      for (const line of options.wallets ? walletLines : scans) yield* Console.log(JSON.stringify(line))
    })
}

// A new embedded database starts with the demo dataset so `npm start` answers something real;
// SEED_DEMO=true/false overrides, and a database that already holds scans is never touched.
export const SeedDemoOnStart = Layer.effectDiscard(
  Effect.gen(function* () {
    const config = yield* DatabaseConfig
    const wanted = Option.getOrElse(config.seedDemo, () => isEmbedded(config))
    if (!wanted) return
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* anyScanStatement(sql)
    if (row?.present) return
    const seeded = yield* seedDemo.store({ tokens: 300, seed: 42 })
    yield* Effect.logInfo(
      `seeded ${seeded.scans} demo scans and ${seeded.walletRecords} wallet records into the empty database`
    )
  }).pipe(Effect.orDie)
)
