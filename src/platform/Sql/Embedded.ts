import { Deferred, Duration, Effect, LogLevel, Option, Runtime } from "effect"
import { memoryPart } from "../Observability/Memory.ts"
import { EMBEDDED_SHARED_BUFFERS_MB } from "./Config.ts"
import type { EmbeddedReply, EmbeddedRequest } from "./EmbeddedWorker.ts"

const STOP_TIMEOUT = Duration.seconds(10)

// The worker is an entry point of `npm run build`. In the compiled binary every module's import.meta.url is
// the binary's own, and entry points sit under it by their path from src/.
const workerUrl = import.meta.url.includes("/$bunfs/")
  ? new URL("./platform/Sql/EmbeddedWorker.ts", import.meta.url).href
  : new URL("./EmbeddedWorker.ts", import.meta.url).href

/**
 * Starts PGlite on `dataDir` (a directory, or memory://) in a thread of its own (EmbeddedWorker.ts says why)
 * behind a loopback Postgres socket, so the same PgClient and SQL serve both kinds of database. Closed
 * cleanly when the scope ends; its memory is reported as embedded_db_wasm and embedded_db_js_objects.
 */
export const embeddedPostgres = (dataDir: string, sharedBuffersMb = EMBEDDED_SHARED_BUFFERS_MB) =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<never>()
    const ready = yield* Deferred.make<number, Error>()
    const stopped = yield* Deferred.make<void>()
    const memory = { wasm: 0, jsObjects: 0 }
    const worker = new Worker(workerUrl)
    const send = (request: EmbeddedRequest) => worker.postMessage(request)
    worker.onmessage = (event: MessageEvent<EmbeddedReply>) => {
      const reply = event.data
      if (reply.type === "ready") Deferred.unsafeDone(ready, Effect.succeed(reply.port))
      else if (reply.type === "failed")
        Deferred.unsafeDone(ready, Effect.fail(new Error(`the embedded database did not start: ${reply.message}`)))
      else if (reply.type === "stopped") Deferred.unsafeDone(stopped, Effect.void)
      else if (reply.type === "memory") Object.assign(memory, { wasm: reply.wasm, jsObjects: reply.jsObjects })
      else Runtime.runFork(runtime)(Effect.logWithLevel(LogLevel.fromLiteral(reply.level), reply.message))
    }
    // Before it is ready the start fails; after, the database is gone and every query says so: logged here.
    worker.onerror = (event) => {
      const failure = new Error(`the embedded database's thread failed: ${event.message}`)
      if (Option.isNone(Effect.runSync(Deferred.poll(ready)))) Deferred.unsafeDone(ready, Effect.fail(failure))
      else Runtime.runFork(runtime)(Effect.logError(failure.message))
    }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => send({ type: "stop" })).pipe(
        Effect.zipRight(Deferred.await(stopped).pipe(Effect.timeout(STOP_TIMEOUT), Effect.ignore)),
        Effect.ensuring(Effect.sync(() => worker.terminate()))
      )
    )
    send({ type: "start", dataDir, sharedBuffersMb })
    const port = yield* Effect.orDie(Deferred.await(ready))
    const releaseWasm = memoryPart("embedded_db_wasm", () => memory.wasm)
    const releaseJs = memoryPart("embedded_db_js_objects", () => memory.jsObjects)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        releaseWasm()
        releaseJs()
      })
    )
    return { host: "127.0.0.1", port }
  })
