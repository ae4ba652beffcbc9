import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Redacted } from "effect"
import { Accounts } from "../../../src/features/Accounts/Accounts.ts"
import type { Scope } from "../../../src/domain/Scope.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { type WebhookConfig, WebhookSettings } from "../../../src/features/Webhooks/Config.ts"
import { WatchAlerts } from "../../../src/features/Webhooks/Evaluator.ts"
import { WebhookOutbox } from "../../../src/features/Webhooks/OutboxRepo.ts"
import { makeDeliveryWorker } from "../../../src/features/Webhooks/Worker.ts"
import type { ScanEvidenceEncoded } from "../../../src/domain/ScanEvidence.ts"
import { runtimeFor } from "../../support/effect.ts"
import { decodeScan } from "../../support/fixtures.ts"
import { postJson, read, testApp } from "../../support/http.ts"
import { sqlServices } from "../../support/layers.ts"

// One database and app per test file, with fast webhook settings, the evaluator and the outbox.

export const testSettings: WebhookConfig = {
  allowLoopback: true,
  endpointsPerAccount: 3,
  timeoutMs: 400,
  maxAttempts: 4,
  retryBaseMs: 40,
  retryMaxMs: 10_000,
  workers: 2,
  pollMs: 10,
  evaluateMs: 20,
  secretKey: Option.some(Redacted.make(Buffer.alloc(32, 7).toString("base64")))
}

export const webhookHarness = (settings: WebhookConfig = testSettings) => {
  const services = Layer.mergeAll(WatchAlerts.Default, WebhookOutbox.Default).pipe(
    Layer.provideMerge(Layer.merge(sqlServices(), Layer.succeed(WebhookSettings, settings)))
  )
  const { run, runtime } = runtimeFor(services)
  const appOf = async () => testApp((await runtime.runtime()).context)
  let app: ReturnType<typeof testApp> | undefined
  const call = async (path: string, init: RequestInit) => {
    app ??= await appOf()
    return read(await app(path, init))
  }

  const keyWith = (scopes: ReadonlyArray<Scope> = ["watch:write", "webhook:write"]) =>
    run(
      Effect.gen(function* () {
        const account = yield* Accounts.create("webhook tests", { plan: "whale" })
        return { accountId: account.id, key: (yield* Accounts.createKey(account.id, scopes, null)).key }
      })
    )

  const auth = (key: string) => ({ authorization: `Bearer ${key}` })
  return {
    run,
    runtime,
    call,
    keyWith,
    post: (path: string, body: unknown, key: string) => call(path, postJson(body, auth(key))),
    get: (path: string, key: string) => call(path, { headers: auth(key) }),
    del: (path: string, key: string) => call(path, { method: "DELETE", headers: auth(key) }),
    createEndpoint: async (url: string, key: string) => {
      const created = await call("/api/v1/webhooks", postJson({ url }, auth(key)))
      if (created.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(created.body)}`)
      return created.body.data as { id: string; secret: string }
    },
    record: (scan: ScanEvidenceEncoded) => run(ScansRepo.record([decodeScan(scan)])),
    evaluate: () => run(Effect.flatMap(WatchAlerts, (alerts) => alerts.evaluate())),
    worker: (name: string) => run(makeDeliveryWorker(settings, name)),
    sql: <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
      run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
  }
}
