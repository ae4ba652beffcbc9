import type { LookupAddress } from "node:dns"
import http from "node:http"
import https from "node:https"
import { Effect } from "effect"
import { VERSION } from "../System/Version.ts"
import type { AttemptOutcome } from "./OutboxRepo.ts"
import { resolveTarget, targetOf } from "./UrlGuard.ts"

// One POST of an event: the URL checked and its host resolved again (DNS may have changed since the
// endpoint was created), the connection pinned to the addresses checked, bounded by the timeout, no
// redirect followed. Any 2xx is delivered; anything else, or no answer, is a failed attempt.

export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMs: number
  readonly allowLoopback: boolean
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<LookupAddress>,
  family?: number
) => void

// node:http asks this instead of DNS, so the socket goes to an address the guard accepted.
const pinnedLookup =
  (addresses: ReadonlyArray<LookupAddress>) =>
  (_host: string, options: { readonly all?: boolean }, callback: LookupCallback) => {
    const first = addresses[0]!
    if (options.all === true) callback(null, [...addresses])
    else callback(null, first.address, first.family)
  }

const post = (request: DeliveryRequest, url: URL, addresses: ReadonlyArray<LookupAddress>) =>
  Effect.async<number, Error>((resume, signal) => {
    const transport = url.protocol === "https:" ? https : http
    const outgoing = transport.request(
      url,
      {
        method: "POST",
        agent: false,
        lookup: pinnedLookup(addresses) as never,
        headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
        signal
      },
      (response) => {
        // The status is the answer; the body is read and dropped.
        response.resume()
        response.on("error", () => {})
        resume(Effect.succeed(response.statusCode ?? 0))
      }
    )
    outgoing.on("error", (error) => resume(Effect.fail(error)))
    outgoing.end(request.body)
  })

export const deliver = (request: DeliveryRequest): Effect.Effect<AttemptOutcome> =>
  Effect.gen(function* () {
    const started = performance.now()
    const elapsed = () => performance.now() - started
    const checked = targetOf(request.url, request.allowLoopback)
    if ("refused" in checked) return { statusCode: null, latencyMs: elapsed(), error: `refused: ${checked.refused}` }
    const resolved = yield* resolveTarget(checked.target, request.allowLoopback)
    if ("refused" in resolved) return { statusCode: null, latencyMs: elapsed(), error: `refused: ${resolved.refused}` }
    const answer = yield* post(request, checked.target.url, resolved.addresses).pipe(
      Effect.timeoutFail({
        duration: request.timeoutMs,
        onTimeout: () => new Error(`no answer within ${request.timeoutMs} ms`)
      }),
      Effect.either
    )
    if (answer._tag === "Left")
      return { statusCode: null, latencyMs: elapsed(), error: answer.left.message || String(answer.left) }
    const status = answer.right
    if (status >= 200 && status < 300) return { statusCode: status, latencyMs: elapsed(), error: null }
    return {
      statusCode: status,
      latencyMs: elapsed(),
      error: status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`
    }
  })

export const USER_AGENT = `risk-api-webhooks/${VERSION}`
