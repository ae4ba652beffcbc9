import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../Config.ts"
import { envelopeResponse, renderCause, type Failure } from "./ErrorEnvelope.ts"
import { CurrentRequestId, requestIdFrom } from "./RequestId.ts"

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"])

// Reject what must not reach a handler before the body is read: oversize and non-JSON bodies.
const precheck = (request: HttpServerRequest.HttpServerRequest, maxBodyBytes: number): Failure | undefined => {
  if (!BODY_METHODS.has(request.method)) return undefined
  const length = Number(request.headers["content-length"] ?? "0")
  if (length > maxBodyBytes) {
    return { status: 413, code: "payload_too_large", message: `The body is ${length} bytes; the limit is ${maxBodyBytes}.` }
  }
  const contentType = request.headers["content-type"]
  if (contentType !== undefined && !contentType.toLowerCase().includes("application/json")) {
    return {
      status: 415,
      code: "unsupported_media_type",
      message: `Content-Type ${contentType} is not accepted; send application/json.`
    }
  }
  return undefined
}

export const withEnvelope = (maxBodyBytes: number) => (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = requestIdFrom(request.headers["x-request-id"])
    const rejected = precheck(request, maxBodyBytes)
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
