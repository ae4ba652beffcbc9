import { describe, expect, test } from "bun:test"
import { ConfigProvider, Effect, HashMap, Layer, Logger, LogLevel, Scope } from "effect"
import { ServiceUnavailable } from "../../../src/domain/Errors.ts"
import { makeServerFetch } from "../../../src/platform/Http/Server.ts"
import { ScansRepo } from "../../../src/features/Scans/ScansRepo.ts"
import { runtimeFor } from "../../support/effect.ts"
import { newAddress } from "../../support/fixtures.ts"
import { memoryServices } from "../../support/layers.ts"

// The request record (metrics and the "request" log line) says what the client got: a request answered
// 503 by the deadline is logged once, as that 503, even when its handler ends later with another status.

const DEADLINE_MS = 200
// A read that ends well after the deadline: with a defect (500) or a typed refusal of its own.
// (A single check's cold read is the cache's batch read, latestVerdicts; latest is the whole scan's.)
const lateWith = (failure: "defect" | "unavailable") => {
  const late = Effect.sleep(DEADLINE_MS * 3).pipe(
    Effect.zipRight(
      failure === "defect"
        ? Effect.die(new Error("late bug"))
        : Effect.fail(new ServiceUnavailable({ message: "late" }))
    )
  )
  return Layer.succeed(
    ScansRepo,
    ScansRepo.make({
      latest: () => late,
      latestMany: () => Effect.die(new Error("not used")),
      latestVerdicts: () => late,
      record: () => Effect.die(new Error("not used")),
      history: () => Effect.die(new Error("not used")),
      latestDocument: () => Effect.die(new Error("not used"))
    })
  )
}

type Line = Record<string, unknown>
const serverLogging = (lines: Array<Line>) =>
  Layer.mergeAll(
    Logger.replace(
      Logger.defaultLogger,
      Logger.make(({ annotations, message }) => {
        if (String(message) === "request") lines.push(Object.fromEntries(HashMap.toEntries(annotations)))
      })
    ),
    Logger.minimumLogLevel(LogLevel.Info)
  )

const late = runtimeFor(memoryServices({ scans: lateWith("defect") }))

// Without the fast path, so HttpApi answers the read (its handler is what ends late).
const serverWith = async (lines: Array<Line>) =>
  Effect.runPromise(
    Scope.extend(
      makeServerFetch((await late.runtime.runtime()).context, serverLogging(lines), { fastPath: false }),
      Effect.runSync(Scope.make())
    ).pipe(
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map([
            ["REQUEST_TIMEOUT_MS", String(DEADLINE_MS)],
            ["LOG_FORMAT", "pretty"]
          ])
        )
      )
    )
  )

describe("the request record", () => {
  test("a request answered 503 at the deadline is recorded once, as 503, however its handler ends later", async () => {
    const lines: Array<Line> = []
    const fetch = await serverWith(lines)
    const started = performance.now()
    const response = await fetch(
      new Request(`http://localhost/api/risk-check/${newAddress()}`, { headers: { "x-request-id": "late-one" } }),
      "10.0.0.1"
    )
    const waited = performance.now() - started
    expect(response.status).toBe(503)
    await Bun.sleep(DEADLINE_MS * 4) // the handler has ended behind the 503
    const recorded = lines.filter((line) => line.requestId === "late-one")
    expect(recorded.map((line) => line.status)).toEqual([503])
    // Its duration is the client's wait (measured around the call), not the handler's.
    expect(Number(recorded[0]!.durationMs)).toBeLessThanOrEqual(waited)
  })

  test("a request HttpApi answers in time is recorded once, with its account and status", async () => {
    const lines: Array<Line> = []
    const fetch = await serverWith(lines)
    const response = await fetch(
      new Request("http://localhost/api/risk-check/not-an-address", { headers: { "x-request-id": "bad-one" } }),
      "10.0.0.2"
    )
    expect(response.status).toBe(400)
    expect(lines.filter((line) => line.requestId === "bad-one").map((line) => [line.status, line.route])).toEqual([
      [400, "/api/risk-check/:address"]
    ])
  })
})
