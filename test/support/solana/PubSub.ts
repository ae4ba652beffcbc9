import type { ServerWebSocket, WebSocketHandler } from "bun"
import type { RecordedTransaction, World, WorldChange } from "./World.ts"

// Solana's PubSub WebSocket over a World, in the node's JSON-RPC shapes (Agave rpc/src/rpc_pubsub.rs):
// logsSubscribe (mentions one address), accountSubscribe and slotSubscribe, each answered with a
// subscription id, then `<kind>Notification` messages {params: {result, subscription}}. Every
// transaction the world records is a logs notification for each subscription whose address it names.
// Tests drop the sockets, refuse new ones (an outage) and inject raw text (a malformed notification).

type Method = "logsSubscribe" | "accountSubscribe" | "slotSubscribe"
interface Subscription {
  readonly id: number
  readonly method: Method
  readonly socket: ServerWebSocket<unknown>
  /** logs: the mentioned address; account: the account. */
  readonly address?: string
  readonly config: Record<string, unknown>
  /** account: the last value sent, to notify on change only. */
  last?: string
}

export interface PubSubControls {
  /** Open sockets. */
  count(): number
  /** Subscriptions held now, by method. */
  subscriptions(method?: Method): number
  /** The ids of the subscriptions held now, by method: a test can wait for one client's to end. */
  subscriptionIds(method?: Method): ReadonlyArray<number>
  /** Closes every socket (code 1006-like: 1011), as a provider dropping its connections. */
  drop(): void
  /** While true, upgrade requests are answered 503: the client cannot reconnect. */
  refuse(on: boolean): void
  /** Sends this text as is on every open socket. */
  inject(text: string): void
  /** Sends `{method, params: {result, subscription}}` to every subscription of `method`'s kind, with its id. */
  notifyAll(method: "logsNotification" | "accountNotification" | "slotNotification", result: unknown): void
}

const encode = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `__u64__${v.toString()}` : v)).replace(
    /"__u64__(-?\d+)"/g,
    "$1"
  )

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const makePubSub = (
  world: World,
  accountInfo: (params: ReadonlyArray<unknown>) => unknown
): {
  readonly handler: WebSocketHandler<unknown>
  readonly controls: PubSubControls
  refusing(): boolean
  readonly stop: () => void
} => {
  const sockets = new Set<ServerWebSocket<unknown>>()
  const subscriptions = new Map<number, Subscription>()
  let nextId = 1
  let refusing = false

  const send = (socket: ServerWebSocket<unknown>, body: unknown) => {
    if (socket.readyState === 1) socket.send(encode(body))
  }
  const notify = (subscription: Subscription, method: string, result: unknown) =>
    send(subscription.socket, { jsonrpc: "2.0", method, params: { result, subscription: subscription.id } })

  const accountValue = (subscription: Subscription) =>
    accountInfo([
      subscription.address,
      { encoding: subscription.config.encoding ?? "base64", commitment: subscription.config.commitment }
    ]) as { context: unknown; value: unknown }

  const onTransaction = (transaction: RecordedTransaction) => {
    for (const subscription of subscriptions.values()) {
      if (subscription.method !== "logsSubscribe") continue
      if (
        subscription.address !== undefined &&
        !transaction.accountKeys.includes(subscription.address as RecordedTransaction["feePayer"])
      )
        continue
      notify(subscription, "logsNotification", {
        context: { slot: transaction.slot },
        value: { signature: transaction.signature, err: null, logs: transaction.logs }
      })
    }
    onAccounts(transaction.accountKeys)
  }
  // Only the accounts a change wrote can have changed: a transaction's keys, or the one account set.
  const onAccounts = (written: ReadonlyArray<string>) => {
    const touched = new Set(written)
    for (const subscription of subscriptions.values()) {
      if (subscription.method !== "accountSubscribe" || !touched.has(subscription.address ?? "")) continue
      const answer = accountValue(subscription)
      const value = encode(answer.value)
      if (value === subscription.last) continue
      subscription.last = value
      notify(subscription, "accountNotification", answer)
    }
  }
  const onChange = (change: WorldChange) => {
    switch (change.kind) {
      case "transaction":
        return onTransaction(change.transaction)
      case "account":
        return onAccounts([change.address])
      case "slot":
        for (const subscription of subscriptions.values()) {
          if (subscription.method === "slotSubscribe")
            notify(subscription, "slotNotification", { parent: change.parent, root: change.parent, slot: change.slot })
        }
    }
  }
  const unsubscribeWorld = world.onChange(onChange)

  const answer = (socket: ServerWebSocket<unknown>, raw: string) => {
    let request: unknown
    try {
      request = JSON.parse(raw)
    } catch {
      return send(socket, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })
    }
    if (!isObject(request))
      return send(socket, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request" } })
    const id = request.id ?? null
    const method = request.method
    const params = Array.isArray(request.params) ? (request.params as ReadonlyArray<unknown>) : []
    // kit's autopinger sends {"jsonrpc":"2.0","method":"ping"} with no id: a notification, so no answer.
    if (method === "ping" && request.id === undefined) return
    switch (method) {
      case "logsSubscribe": {
        const filter = params[0]
        const mentions =
          isObject(filter) && Array.isArray(filter.mentions) ? (filter.mentions as ReadonlyArray<unknown>) : undefined
        if (filter !== "all" && (mentions === undefined || mentions.length !== 1 || typeof mentions[0] !== "string")) {
          return send(socket, {
            jsonrpc: "2.0",
            id,
            error: { code: -32602, message: "Invalid Request: Only 1 address supported" }
          })
        }
        const subscription: Subscription = {
          id: nextId++,
          method,
          socket,
          config: isObject(params[1]) ? params[1] : {},
          ...(mentions === undefined ? {} : { address: mentions[0] as string })
        }
        subscriptions.set(subscription.id, subscription)
        return send(socket, { jsonrpc: "2.0", result: subscription.id, id })
      }
      case "accountSubscribe": {
        if (typeof params[0] !== "string")
          return send(socket, { jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid params" } })
        const subscription: Subscription = {
          id: nextId++,
          method,
          socket,
          address: params[0],
          config: isObject(params[1]) ? params[1] : {}
        }
        subscription.last = encode(accountValue(subscription).value)
        subscriptions.set(subscription.id, subscription)
        return send(socket, { jsonrpc: "2.0", result: subscription.id, id })
      }
      case "slotSubscribe": {
        const subscription: Subscription = { id: nextId++, method, socket, config: {} }
        subscriptions.set(subscription.id, subscription)
        return send(socket, { jsonrpc: "2.0", result: subscription.id, id })
      }
      case "logsUnsubscribe":
      case "accountUnsubscribe":
      case "slotUnsubscribe": {
        const existed = typeof params[0] === "number" && subscriptions.get(params[0])?.socket === socket
        if (existed) subscriptions.delete(params[0] as number)
        return existed
          ? send(socket, { jsonrpc: "2.0", result: true, id })
          : send(socket, { jsonrpc: "2.0", id, error: { code: -32602, message: "Invalid subscription id." } })
      }
      default:
        return send(socket, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
    }
  }

  const forget = (socket: ServerWebSocket<unknown>) => {
    sockets.delete(socket)
    for (const [id, subscription] of subscriptions) if (subscription.socket === socket) subscriptions.delete(id)
  }

  return {
    handler: {
      open: (socket) => {
        sockets.add(socket)
      },
      message: (socket, message) =>
        answer(socket, typeof message === "string" ? message : new TextDecoder().decode(message)),
      close: forget
    },
    refusing: () => refusing,
    controls: {
      count: () => sockets.size,
      subscriptions: (method) =>
        [...subscriptions.values()].filter((s) => method === undefined || s.method === method).length,
      subscriptionIds: (method) =>
        [...subscriptions.values()].filter((s) => method === undefined || s.method === method).map((s) => s.id),
      drop: () => {
        for (const socket of [...sockets]) {
          forget(socket)
          socket.close(1011, "dropped by the test")
        }
      },
      refuse: (on) => {
        refusing = on
      },
      inject: (text) => {
        for (const socket of sockets) socket.send(text)
      },
      notifyAll: (method, result) => {
        const kind = method.replace("Notification", "Subscribe")
        for (const subscription of subscriptions.values())
          if (subscription.method === kind) notify(subscription, method, result)
      }
    },
    stop: unsubscribeWorld
  }
}
