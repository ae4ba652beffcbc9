import type { Address } from "@solana/kit"
import { makePubSub, type PubSubControls } from "./PubSub.ts"
import { type AccountView, type RecordedSimulation, RpcError, makeRpcMethods } from "./RpcMethods.ts"
import type { World } from "./World.ts"

// Solana JSON-RPC 2.0 over a World on 127.0.0.1, so the production scanner runs unchanged through
// kit's createSolanaRpc. Faults are set per test; counted ones are used up by the matching HTTP
// requests (a batch matches when any of its calls does).

type Fault =
  /** HTTP 429 with Retry-After. */
  | { readonly kind: "rateLimit"; readonly count: number; readonly retryAfterSeconds: number; readonly method?: string }
  /** No answer for delayMs, then the real answer; without delayMs, no answer until stop(). */
  | { readonly kind: "hang"; readonly count: number; readonly delayMs?: number; readonly method?: string }
  /** HTTP 200 with a body that is not JSON. */
  | { readonly kind: "malformed"; readonly count: number; readonly method?: string }
  /** Answers computed as usual but with context.slot `behind` slots old, minContextSlot ignored. */
  | { readonly kind: "staleSlot"; readonly count: number; readonly behind: bigint; readonly method?: string }
  /** A JSON-RPC error object instead of the result (e.g. -32005 node is behind). */
  | {
      readonly kind: "error"
      readonly count: number
      readonly code: number
      readonly message: string
      readonly method?: string
    }
  /** Until reset: this account is reported under another owner program. */
  | { readonly kind: "wrongOwner"; readonly address: Address; readonly owner: Address }
  /** Until reset: this account does not exist (null, absent from lists). */
  | { readonly kind: "missing"; readonly address: Address }

type CountedFault = Extract<Fault, { readonly count: number }>

interface RpcCall {
  readonly method: string
  readonly params: ReadonlyArray<unknown>
}

export interface RpcServer {
  readonly url: string
  /** The PubSub WebSocket on the same port (ws://...): logsSubscribe, accountSubscribe, slotSubscribe. */
  readonly wsUrl: string
  readonly pubsub: PubSubControls
  /** JSON-RPC calls by method, faulted ones included (they were round trips). */
  readonly calls: Map<string, number>
  readonly log: Array<RpcCall>
  /** The methods of each HTTP request, in order: one entry per round trip. */
  readonly batches: Array<ReadonlyArray<string>>
  /** HTTP requests received (a batch is one). */
  requests(): number
  fault(fault: Fault): void
  /**
   * Answers simulateTransaction with this recorded answer whenever the transaction's instructions
   * invoke `program` (a program LiteSVM does not have, such as a DEX); kept until forgetSimulations().
   * Every other transaction is simulated for real on the LiteSVM.
   */
  recordSimulation(program: Address, answer: RecordedSimulation): void
  forgetSimulations(): void
  /** Clears counts, log and faults (not recorded simulations). */
  reset(): void
  stop(): Promise<void>
}

interface Request {
  readonly jsonrpc?: unknown
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: unknown
}

/** JSON with bigint as bare numbers: mainnet sends u64 as numbers and kit reads them back as bigint. */
export const encodeJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `__u64__${v.toString()}` : v)).replace(
    /"__u64__(-?\d+)"/g,
    "$1"
  )

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(encodeJson(body), { status, headers: { "content-type": "application/json", ...headers } })

export const startRpcServer = (world: World, port = 0): RpcServer => {
  const calls = new Map<string, number>()
  const log: Array<RpcCall> = []
  const batches: Array<ReadonlyArray<string>> = []
  let counted: Array<{ fault: CountedFault; left: number }> = []
  const missing = new Set<string>()
  const owners = new Map<string, Address>()
  let behind = 0n
  let requests = 0
  const hanging = new Set<() => void>()
  const simulations = new Map<string, RecordedSimulation>()

  const { methods, stop: stopMethods } = makeRpcMethods(
    world,
    (): AccountView => ({ missing, owners, behind, simulations })
  )
  const pubsub = makePubSub(world, (params) => methods.getAccountInfo!(params))

  const answer = (request: Request): unknown => {
    const id = request.id ?? null
    if (request.jsonrpc !== "2.0" || typeof request.method !== "string") {
      return { jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid request" } }
    }
    const method = methods[request.method]
    if (method === undefined) return { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }
    try {
      return { jsonrpc: "2.0", id, result: method(Array.isArray(request.params) ? request.params : []) }
    } catch (error) {
      if (error instanceof RpcError) {
        return {
          jsonrpc: "2.0",
          id,
          error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
        }
      }
      return { jsonrpc: "2.0", id, error: { code: -32603, message: `Internal error: ${String(error)}` } }
    }
  }

  const takeFault = (batch: ReadonlyArray<Request>): CountedFault | undefined => {
    const entry = counted.find(
      ({ fault }) => fault.method === undefined || batch.some((request) => request.method === fault.method)
    )
    if (entry === undefined) return undefined
    entry.left -= 1
    if (entry.left <= 0) counted = counted.filter((other) => other !== entry)
    return entry.fault
  }

  const respond = (
    body: unknown,
    batch: ReadonlyArray<Request>,
    isBatch: boolean,
    fault: CountedFault | undefined
  ): Response => {
    if (fault?.kind === "error") {
      // A node errs per call: in a batch only the calls of the faulted method fail.
      const errors = batch.map((request) =>
        fault.method === undefined || request.method === fault.method
          ? { jsonrpc: "2.0", id: request.id ?? null, error: { code: fault.code, message: fault.message } }
          : answer(request)
      )
      return json(isBatch ? errors : errors[0])
    }
    behind = fault?.kind === "staleSlot" ? fault.behind : 0n
    try {
      return json(isBatch ? batch.map(answer) : answer(body as Request))
    } finally {
      behind = 0n
    }
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    // A hanging answer must stay open until the client gives up.
    idleTimeout: 0,
    websocket: pubsub.handler,
    fetch: async (http, bun) => {
      if (http.headers.get("upgrade")?.toLowerCase() === "websocket") {
        if (pubsub.refusing()) return new Response("Service Unavailable", { status: 503 })
        return bun.upgrade(http, { data: undefined }) ? undefined : new Response("Upgrade failed", { status: 400 })
      }
      if (http.method !== "POST") return new Response("Method Not Allowed", { status: 405 })
      requests += 1
      let body: unknown
      try {
        body = await http.json()
      } catch {
        return json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
      }
      const isBatch = Array.isArray(body)
      const batch: ReadonlyArray<Request> = isBatch ? (body as ReadonlyArray<Request>) : [body as Request]
      batches.push(batch.map((request) => (typeof request.method === "string" ? request.method : "?")))
      for (const request of batch) {
        const method = typeof request.method === "string" ? request.method : "?"
        calls.set(method, (calls.get(method) ?? 0) + 1)
        log.push({ method, params: Array.isArray(request.params) ? request.params : [] })
      }
      const fault = takeFault(batch)
      switch (fault?.kind) {
        case "rateLimit":
          return json({ jsonrpc: "2.0", id: null, error: { code: 429, message: "Too many requests" } }, 429, {
            "retry-after": String(fault.retryAfterSeconds)
          })
        case "malformed":
          return new Response('{"jsonrpc":"2.0","result":{"context":', {
            status: 200,
            headers: { "content-type": "application/json" }
          })
        case "hang":
          await new Promise<void>((resolve) => {
            hanging.add(resolve)
            if (fault.delayMs !== undefined)
              setTimeout(() => {
                hanging.delete(resolve)
                resolve()
              }, fault.delayMs)
          })
          return respond(body, batch, isBatch, undefined)
        default:
          return respond(body, batch, isBatch, fault)
      }
    }
  })

  return {
    url: `http://127.0.0.1:${server.port}`,
    wsUrl: `ws://127.0.0.1:${server.port}`,
    pubsub: pubsub.controls,
    calls,
    log,
    batches,
    requests: () => requests,
    fault: (fault) => {
      switch (fault.kind) {
        case "wrongOwner":
          owners.set(fault.address, fault.owner)
          return
        case "missing":
          missing.add(fault.address)
          return
        default:
          counted.push({ fault, left: fault.count })
      }
    },
    recordSimulation: (program, answer) => {
      simulations.set(program, answer)
    },
    forgetSimulations: () => simulations.clear(),
    reset: () => {
      calls.clear()
      log.length = 0
      batches.length = 0
      counted = []
      missing.clear()
      owners.clear()
      requests = 0
    },
    stop: async () => {
      for (const release of hanging) release()
      hanging.clear()
      pubsub.stop()
      stopMethods()
      pubsub.controls.drop()
      await server.stop(true)
    }
  }
}
