// Type-checked in CI (npm run check): clients generated from the served document call every route of the
// contract, with the demo mints, and read the rate-limit headers as typed values. A contract change that
// breaks generation or these calls fails CI.
import createClient from "openapi-fetch"
import type { components, operations, paths } from "./generated/schema"
import { createClient as createHeyApiClient } from "./generated/hey-api/client"
import * as sdk from "./generated/hey-api/sdk.gen"

const baseUrl = "http://localhost:3000"
const apiKey = "rsk_your_key"
const MINT = "BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz"
const WALLET = "2BY1GKpxenMPVAiv8CtSVRmajYQDdQ3E8nWEUvdnAafy"

type Headers200<Operation extends keyof operations> = operations[Operation]["responses"] extends { 200: { headers: infer H } } ? H : never

/** The documented rate-limit headers of an answer, as the document types them. */
const rateLimitOf = (response: Response): Pick<Headers200<"riskCheck.check">, "RateLimit" | "X-RateLimit-Limit" | "X-RateLimit-Remaining" | "X-RateLimit-Reset"> => ({
  "RateLimit": response.headers.get("RateLimit") ?? "",
  "X-RateLimit-Limit": Number(response.headers.get("X-RateLimit-Limit")),
  "X-RateLimit-Remaining": Number(response.headers.get("X-RateLimit-Remaining")),
  "X-RateLimit-Reset": Number(response.headers.get("X-RateLimit-Reset"))
})

const quotaOf = (response: Response): Pick<Headers200<"token.risk">, "X-Quota-Limit" | "X-Quota-Remaining"> => ({
  "X-Quota-Limit": Number(response.headers.get("X-Quota-Limit")),
  "X-Quota-Remaining": Number(response.headers.get("X-Quota-Remaining"))
})

export const withOpenapiFetch = async (): Promise<void> => {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } })

  const check = await client.GET("/api/risk-check/{address}", { params: { path: { address: MINT } } })
  const verdict: components["schemas"]["RiskCheckResult"]["verdict"] | undefined = check.data?.verdict
  const remaining: number = rateLimitOf(check.response)["X-RateLimit-Remaining"]
  if (check.error !== undefined) console.error(check.error.error.code, check.error.error.requestId)

  const batch = await client.POST("/api/risk-check/batch", { body: { addresses: [MINT, WALLET] } })
  const count: number | undefined = batch.data?.count
  const rescan = await client.POST("/api/risk-check/{address}/rescan", { params: { path: { address: MINT } } })
  const pending: "pending" | undefined = rescan.data?.status

  const token = await client.POST("/api/v1/token/risk", { body: { address: MINT } })
  const safety: number | undefined = token.data?.data.safetyScore
  const quota = quotaOf(token.response)
  if (token.error !== undefined) console.error(token.error.error.code, token.response.headers.get("Retry-After"))

  const wallet = await client.POST("/api/v1/wallet/risk", { body: { walletAddress: WALLET } })
  const action: string | undefined = wallet.data?.data.recommendedAction
  const history = await client.GET("/api/v1/deployer/{wallet}/history", { params: { path: { wallet: WALLET }, query: { limit: 20 } } })
  const cursor: string | null | undefined = history.data?.data.page.nextCursor
  const preTrade = await client.POST("/api/v1/decision/pre-trade", { body: { mint: MINT, side: "buy", sizeUsd: 500 } })
  const decision: string | undefined = preTrade.data?.data.decision
  const watch = await client.POST("/api/v1/decision/set-watch", {
    body: { mint: MINT, rules: [{ metric: "safety_score", comparison: "lt", threshold: 60 }], label: "ci" }
  })
  const watchId = watch.data?.data.watch_id ?? ""
  const monitor = await client.POST("/api/v1/decision/monitor-position", {
    body: { mint: MINT, entryTime: "2026-11-23T12:00:00Z", entryPriceUsd: 0.02, watchId }
  })
  const next: number | undefined = monitor.data?.data.next_check_after_seconds
  const watches = await client.GET("/api/v1/decision/watches")
  const read = await client.GET("/api/v1/decision/watches/{id}", { params: { path: { id: watchId } } })
  const deleted = await client.DELETE("/api/v1/decision/watches/{id}", { params: { path: { id: watchId } } })
  console.log(verdict, remaining, count, pending, safety, quota, action, cursor, decision, next, watches.data?.data.length,
    read.data?.data.rules.length, deleted.data?.data.deleted)
}

export const withHeyApi = async (): Promise<void> => {
  const client = createHeyApiClient({ baseUrl, auth: () => apiKey })

  const check = await sdk.riskCheckCheck({ client, path: { address: MINT } })
  // hey-api leaves `response` undefined when the request never got one (network failure).
  const limit: number | undefined = check.response === undefined ? undefined : rateLimitOf(check.response)["X-RateLimit-Limit"]
  const batch = await sdk.riskCheckBatch({ client, body: { addresses: [MINT] } })
  const rescan = await sdk.riskCheckRescan({ client, path: { address: MINT } })
  const token = await sdk.tokenRisk({ client, body: { address: MINT } })
  const wallet = await sdk.walletRisk({ client, body: { walletAddress: WALLET } })
  const history = await sdk.deployerHistory({ client, path: { wallet: WALLET }, query: { limit: 2 } })
  const preTrade = await sdk.decisionPreTrade({ client, body: { mint: MINT, side: "sell" } })
  const watch = await sdk.watchSetWatch({ client, body: { mint: MINT, rules: [{ metric: "liquidity_usd", comparison: "lt", threshold: 20_000 }] } })
  const watchId = watch.data?.data.watch_id ?? ""
  const monitor = await sdk.decisionMonitorPosition({ client, body: { mint: MINT, watchId } })
  const watches = await sdk.watchListWatches({ client })
  const read = await sdk.watchGetWatch({ client, path: { id: watchId } })
  const deleted = await sdk.watchDeleteWatch({ client, path: { id: watchId } })
  console.log(limit, check.data?.verdict, batch.data?.count, rescan.data?.request_count, token.data?.meta.quota.remaining,
    wallet.data?.data.riskLevel, history.data?.data.summary.riskLevel, preTrade.data?.data.recommended_action,
    monitor.data?.data.decision, watches.data?.data.length, read.data?.data.poll_seconds, deleted.data?.data.deleted,
    token.response === undefined ? undefined : quotaOf(token.response)["X-Quota-Remaining"])
}
