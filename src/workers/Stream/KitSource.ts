import {
  type Address,
  type Signature,
  createDefaultRpcSubscriptionsTransport,
  createSolanaRpcSubscriptionsFromTransport,
  getBase64Encoder,
  getChannelPoolingChannelCreator,
  getRpcSubscriptionsChannelWithAutoping,
  transformChannelInboundMessages,
  transformChannelOutboundMessages
} from "@solana/kit"
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from "@solana/rpc-spec-types"
import { createWebSocketChannel } from "@solana/rpc-subscriptions-channel-websocket"
import { Cause, Effect } from "effect"
import type { ScanRpc } from "../Scanner/Rpc.ts"
import { hostOf } from "./Config.ts"
import {
  streamBackfilled,
  streamMalformed,
  streamNotifications,
  streamReconnects,
  streamSubscriptions
} from "./Metrics.ts"
import { backoff, reasonOf } from "./Reconnect.ts"
import type { AccountNotice, Handler, LogNotice, StreamSource } from "./Source.ts"

// The PubSub WebSocket source on @solana/kit's rpc-subscriptions. kit pools channels and pings idle
// sockets but neither reconnects nor replays (kit guide, "rpc-subscriptions"): each subscription here
// runs in a loop that resubscribes with backoff and, once subscribed again, pages getSignaturesForAddress
// back to the last signature it handled, so the gap is filled before the live queue is read on.
// kit's JSON parser throws from inside the socket's message listener on a message that is not JSON,
// which would take the process down: the channel here parses tolerantly, and counts and drops such a
// message instead.

export interface KitSourceSettings {
  readonly url: string
  readonly pingMs: number
  readonly reconnectMaxMs: number
  readonly backfillLimit: number
  /** For the gap fill. */
  readonly rpc: () => ScanRpc
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

// kit's channel pool (@solana/rpc-subscriptions) leaves a promise unhandled when a channel is aborted while it
// connects (a dropped socket, a subscription ended during reconnect): its AbortError would surface as an
// unhandled rejection. Those, and only those, are dropped; any other unhandled rejection is rethrown, so it
// stays fatal as by default.
let abortGuard = false
const guardKitAborts = () => {
  if (abortGuard) return
  abortGuard = true
  process.on("unhandledRejection", (reason) => {
    if (reason instanceof Error && reason.name === "AbortError") return
    throw reason
  })
}

export const makeKitSource = (settings: KitSourceSettings): StreamSource => {
  guardKitAborts()
  const host = hostOf(settings.url)
  const tolerantParse = (text: unknown): unknown => {
    try {
      return parseJsonWithBigInts(String(text))
    } catch {
      streamMalformed.inc()
      // Logged without the text: a provider's error page may echo the URL and its key.
      Effect.runFork(
        Effect.logWarning("stream: a message that is not JSON was skipped").pipe(
          Effect.annotateLogs({ host, bytes: String(text).length })
        )
      )
      return {}
    }
  }
  const createChannel = getChannelPoolingChannelCreator(
    ({ abortSignal }) => {
      const channel = createWebSocketChannel({
        url: settings.url,
        sendBufferHighWatermark: 131_072,
        signal: abortSignal
      })
        .then((channel) =>
          transformChannelOutboundMessages(
            transformChannelInboundMessages(channel, tolerantParse),
            stringifyJsonWithBigInts
          )
        )
        .then((channel) =>
          getRpcSubscriptionsChannelWithAutoping({ abortSignal, channel, intervalMs: settings.pingMs })
        )
      // The pool keeps this promise in its entry, and when the channel is aborted while it connects no one may
      // await it: marked handled here, so its AbortError is not an unhandled rejection (which the process
      // guard below drops in production, but a test runner counts as a failure). Whoever awaits it still
      // gets the rejection.
      channel.catch(() => undefined)
      return channel
    },
    { maxSubscriptionsPerChannel: 100, minChannels: 1 }
  )
  const subscriptions = createSolanaRpcSubscriptionsFromTransport(
    createDefaultRpcSubscriptionsTransport({ createChannel })
  )

  /**
   * One subscription, again and again: `session` subscribes and reads until the socket fails; the loop
   * logs, waits and starts another. `label` names it in metrics.
   */
  const forever = (
    label: "logs" | "account" | "slot",
    session: (connected: () => void) => Effect.Effect<void, unknown>
  ): Effect.Effect<never> =>
    Effect.suspend(() => {
      let attempt = 0
      let up = false
      const connected = () => {
        attempt = 0
        up = true
        streamSubscriptions.inc({ subscription: label, state: "up" })
      }
      const lost = (cause: Cause.Cause<unknown>) =>
        Effect.gen(function* () {
          if (up) {
            up = false
            streamSubscriptions.dec({ subscription: label, state: "up" })
          }
          streamReconnects.inc({ subscription: label })
          streamSubscriptions.inc({ subscription: label, state: "down" })
          // The first failure is news; the retries after it are detail.
          yield* (attempt === 0 ? Effect.logInfo : Effect.logDebug)("stream: subscription lost; reconnecting").pipe(
            Effect.annotateLogs({
              host,
              subscription: label,
              attempt,
              // kit's errors name the socket's close; the URL is cut out should one ever carry it.
              reason: reasonOf(Cause.squash(cause), [settings.url])
            })
          )
          yield* Effect.sleep(backoff(attempt++, settings.reconnectMaxMs))
          streamSubscriptions.dec({ subscription: label, state: "down" })
        })
      return Effect.forever(Effect.catchAllCause(session(connected), lost)).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            if (up) streamSubscriptions.dec({ subscription: label, state: "up" })
          })
        )
      )
    })

  /** Runs `read` over a kit subscription until it ends or fails; aborted when the fiber is interrupted. */
  const reading = <T>(
    subscribe: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
    onStart: () => Effect.Effect<void, unknown>,
    read: (notification: T) => Effect.Effect<void>
  ): Effect.Effect<void, unknown> =>
    Effect.acquireUseRelease(
      Effect.sync(() => new AbortController()),
      (abort) =>
        Effect.gen(function* () {
          const iterable = yield* Effect.tryPromise(() => subscribe(abort.signal))
          const iterator = iterable[Symbol.asyncIterator]()
          // A pull is started before it is awaited (so notifications queue while onStart or read runs). When the
          // session ends first (onStart fails, the fiber is interrupted), the abort rejects that pull with nobody
          // awaiting it: mark it handled, or the AbortError surfaces as an unhandled rejection.
          const pull = () => {
            const pending = iterator.next()
            pending.catch(() => undefined)
            return pending
          }
          // kit sends the subscribe request on the first pull and queues notifications until read.
          let next = pull()
          yield* onStart()
          while (true) {
            const result = yield* Effect.tryPromise(() => next)
            if (result.done === true) return yield* Effect.fail(new Error("subscription ended"))
            next = pull()
            yield* read(result.value)
          }
        }),
      (abort) => Effect.sync(() => abort.abort())
    )

  /** Signatures after `until` that mention `address`, oldest first, at most backfillLimit. */
  const gap = (address: Address, until: string) =>
    Effect.gen(function* () {
      const found: Array<{ signature: string; slot: bigint; failed: boolean }> = []
      let before: string | undefined
      while (found.length < settings.backfillLimit) {
        const limit = Math.min(1_000, settings.backfillLimit - found.length)
        const rpc = settings.rpc()
        const page = yield* Effect.tryPromise(() =>
          rpc
            .getSignaturesForAddress(address, {
              limit,
              commitment: "confirmed",
              ...(until === "" ? {} : { until: until as Signature }),
              ...(before === undefined ? {} : { before: before as Signature })
            })
            .send()
        )
        for (const entry of page)
          found.push({ signature: entry.signature, slot: entry.slot, failed: entry.err !== null })
        if (page.length < limit) break
        before = page.at(-1)?.signature
      }
      return found.reverse()
    })

  return {
    logs: (address, handler: Handler<LogNotice>) => {
      let last: string | undefined
      return forever("logs", (connected) =>
        reading(
          (signal) =>
            subscriptions
              .logsNotifications({ mentions: [address] }, { commitment: "confirmed" })
              .subscribe({ abortSignal: signal }),
          () =>
            Effect.gen(function* () {
              connected()
              if (settings.backfillLimit === 0) return
              if (last === undefined) {
                // The first subscription starts the checkpoint at the newest transaction, so a drop before
                // any notification still has a point to fill back to.
                const rpc = settings.rpc()
                const newest = yield* Effect.tryPromise(() =>
                  rpc.getSignaturesForAddress(address, { limit: 1, commitment: "confirmed" }).send()
                )
                // "" when the address has no transaction yet: the next fill reads from its first.
                last = newest[0]?.signature ?? ""
                return
              }
              // The checkpoint moves only once the gap is filled: a drop during the fill fills it again.
              const missed = yield* gap(address, last)
              streamBackfilled.inc(missed.length)
              for (const entry of missed) {
                yield* handler({
                  signature: entry.signature,
                  slot: entry.slot,
                  failed: entry.failed,
                  logs: undefined,
                  backfilled: true
                })
              }
              if (missed.length > 0) last = missed.at(-1)?.signature
            }),
          (notification) => {
            const value: unknown = isObject(notification) ? notification.value : undefined
            const context: unknown = isObject(notification) ? notification.context : undefined
            if (
              !isObject(value) ||
              typeof value.signature !== "string" ||
              !Array.isArray(value.logs) ||
              !isObject(context) ||
              typeof context.slot !== "bigint"
            ) {
              streamMalformed.inc()
              streamNotifications.inc({ subscription: "logs", outcome: "malformed" })
              return Effect.logWarning("stream: a logs notification of an unknown shape was skipped").pipe(
                Effect.annotateLogs({ host, address })
              )
            }
            last = value.signature
            return handler({
              signature: value.signature,
              slot: context.slot,
              failed: value.err !== null,
              logs: value.logs.filter((line): line is string => typeof line === "string"),
              backfilled: false
            })
          }
        )
      )
    },

    account: (address, handler: Handler<AccountNotice>) =>
      forever("account", (connected) =>
        reading(
          (signal) =>
            subscriptions
              .accountNotifications(address, { commitment: "confirmed", encoding: "base64" })
              .subscribe({ abortSignal: signal }),
          () => Effect.sync(connected),
          (notification) => {
            const context: unknown = isObject(notification) ? notification.context : undefined
            const value: unknown = isObject(notification) ? notification.value : undefined
            const data =
              isObject(value) && Array.isArray(value.data) && typeof value.data[0] === "string"
                ? value.data[0]
                : undefined
            if (!isObject(context) || typeof context.slot !== "bigint" || (value !== null && data === undefined)) {
              streamMalformed.inc()
              streamNotifications.inc({ subscription: "account", outcome: "malformed" })
              return Effect.logWarning("stream: an account notification of an unknown shape was skipped").pipe(
                Effect.annotateLogs({ host, address })
              )
            }
            return handler({
              slot: context.slot,
              data: data === undefined ? undefined : Uint8Array.from(getBase64Encoder().encode(data))
            })
          }
        )
      ),

    slots: (handler) =>
      forever("slot", (connected) =>
        reading(
          (signal) => subscriptions.slotNotifications().subscribe({ abortSignal: signal }),
          () => Effect.sync(connected),
          (notification) =>
            isObject(notification) && typeof notification.slot === "bigint" ? handler(notification.slot) : Effect.void
        )
      )
  }
}
