import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../Config.ts"
import { envelopeResponse, renderCause, type Failure } from "./ErrorEnvelope.ts"
import { CurrentRequestId, requestIdFrom } from "./RequestId.ts"

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

const tooLarge = (length: number, maxBodyBytes: number): Failure => ({
  status: 413,
  code: "payload_too_large",
  message: `The body is ${length} bytes or more; the limit is ${maxBodyBytes}.`
})

// Reject what must not reach a handler: oversize and non-JSON bodies. A declared length is checked
// before reading; a chunked body is read here (the request caches it for the handler) and measured.
const precheck = (
  request: HttpServerRequest.HttpServerRequest,
  maxBodyBytes: number
): Effect.Effect<Failure | undefined> => {
  if (!BODY_METHODS.has(request.method)) return Effect.succeed(undefined)
  const contentType = request.headers["content-type"]
  if (contentType !== undefined && !contentType.toLowerCase().includes("application/json")) {
    return Effect.succeed({
      status: 415,
      code: "unsupported_media_type",
      message: `Content-Type ${contentType} is not accepted; send application/json.`
    })
  }
  const declared = request.headers["content-length"]
  if (declared !== undefined) {
    const length = Number(declared)
    return Effect.succeed(length > maxBodyBytes ? tooLarge(length, maxBodyBytes) : undefined)
  }
  if (request.headers["transfer-encoding"] === undefined) return Effect.succeed(undefined)
  return request.text.pipe(
    Effect.map((text) => {
      const length = Buffer.byteLength(text)
      return length > maxBodyBytes ? tooLarge(length, maxBodyBytes) : undefined
    }),
    Effect.orElseSucceed(() => undefined) // a body that cannot be read fails later, as malformed
  )
}

export const withEnvelope = (maxBodyBytes: number) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdFrom(request.headers["x-request-id"])
    const rejected = yield* precheck(request, maxBodyBytes)
    const response = rejected !== undefined
      ? envelopeResponse(rejected, requestId)
      : yield* app.pipe(
        Effect.catchAllCause((cause) => renderCause(cause, request, requestId)),
        Effect.locally(CurrentRequestId, requestId)
      )
    return HttpServerResponse.setHeader(response, "x-request-id", requestId)
  })

export const ApiMiddlewareLive = HttpApiBuilder.middleware(
  Effect.map(AppConfig, (config) => withEnvelope(config.maxBodyBytes))
)
