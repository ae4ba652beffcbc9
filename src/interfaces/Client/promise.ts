import { Effect, Option } from "effect"
import { failureOf } from "../../domain/Errors.ts"
import { type ClientOptions, makeClient as makeEffectClient } from "./index.ts"

// The default entry of `risk-evidence-api-client`: the same client with Promises instead of Effects. Bundled with
// effect inside (no runtime dependency); its declarations are written by scripts/client-declarations.ts from the
// contract's schemas, so they name no effect type. A call never rejects: it resolves to a result, `ok` or not.

type Call = (request?: Record<string, unknown>) => Effect.Effect<readonly [unknown, Response], unknown>

interface Response {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

const tagOf = (error: object): string => ("_tag" in error && typeof error._tag === "string" ? error._tag : "")
const messageOf = (error: object): string =>
  "message" in error && typeof error.message === "string" ? error.message : String(error)

/** A failure as a plain object: the envelope's fields for an API error, a client-side code otherwise. */
const failure = (error: unknown): Record<string, unknown> => {
  if (typeof error !== "object" || error === null) return { code: "request_failed", message: String(error) }
  if ("code" in error && "requestId" in error) {
    const details = "details" in error ? error.details : undefined
    return {
      code: error.code,
      status: Option.match(failureOf(error), { onNone: () => 500, onSome: (info) => info.status }),
      message: messageOf(error),
      requestId: error.requestId,
      ...(details === undefined ? {} : { details })
    }
  }
  const tag = tagOf(error)
  // HttpClientError: no answer (RequestError) or an answer the contract does not describe (ResponseError).
  if (tag === "ResponseError" && "response" in error) {
    const { status } = error.response as Response
    return { code: "unexpected_response", status, message: messageOf(error) }
  }
  if (tag === "ParseError") return { code: "schema_mismatch", message: messageOf(error) }
  return { code: "request_failed", message: messageOf(error) }
}

/**
 * The typed client of the API at `baseUrl`, with Promises: each method resolves to `{ ok: true, status, headers,
 * data }` or `{ ok: false, error }`, the error's `code` one of the route's envelope codes (or a client-side one).
 */
export const makeClient = (options: ClientOptions): unknown => {
  const client = makeEffectClient(options) as unknown as Record<string, Record<string, Call>>
  return Object.fromEntries(
    Object.entries(client).map(([groupName, methods]) => [
      groupName,
      Object.fromEntries(
        Object.entries(methods).map(([name, call]) => [
          name,
          (request: Record<string, unknown> = {}) =>
            Effect.runPromise(
              Effect.suspend(() => call({ ...request, withResponse: true })).pipe(
                Effect.match({
                  onSuccess: ([data, response]) => ({
                    ok: true,
                    status: response.status,
                    headers: { ...response.headers },
                    data
                  }),
                  onFailure: (error) => ({ ok: false, error: failure(error) })
                }),
                Effect.catchAllDefect((defect) => Effect.succeed({ ok: false, error: failure(defect) }))
              )
            )
        ])
      )
    ])
  )
}
