import type {
  ClientDuplexStream,
  CommitmentLevel,
  SlotStatus,
  SubscribeRequest,
  SubscribeUpdate,
  SubscribeUpdateAccountInfo
} from "@triton-one/yellowstone-grpc"
import { Cause, Duration, Effect, Fiber, Redacted, Schedule } from "effect"
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
import { isKey, toBase58, viewOf } from "./YellowstoneDecode.ts"

// The Yellowstone (Geyser) gRPC source on @triton-one/yellowstone-grpc (a napi-rs binding of the Rust
// client; it runs under Bun). Every subscription of the watcher shares one Subscribe stream with at most one
// filter of each kind (endpoints may cap the filters per kind; the plugin's sample config allows one): the
// `logs(address)` addresses are one transactions filter's account_include (no votes, no failed
// transactions), the `account(address)` addresses one accounts filter, `slots` a slots filter; the whole
// request is written again whenever the set changes (Geyser replaces a stream's filters with each request).
// A transaction goes to the handlers of each address among its keys, an account to its own. A transaction
// update carries the whole transaction (keys, instructions, inner instructions, token balances, logs), so
// the watcher reads no getTransaction for it. The stream is pinged every pingMs (load balancers drop an
// idle HTTP/2 stream) and is made again, with backoff, when it fails or when nothing (no update, no pong,
// no server ping) came for three ping periods. After a reconnect the request asks for a replay from the
// last slot seen (`from_slot`), clamped to the endpoint's first available slot; an endpoint without replay
// (SubscribeReplayInfo answers none, or fails) resumes live. Updates of slots up to the tip read once the
// stream opened again are marked backfilled. A transaction or account update that cannot be read is logged,
// counted and skipped; a message the SDK cannot decode ends the stream (its decoder runs inside the read)
// and counts as a reconnect.

export interface YellowstoneSourceSettings {
  /** The endpoint, http(s)://host:port; may carry a key, so only its scheme and host are logged. */
  readonly url: string
  /** Sent as x-token. */
  readonly token: Redacted.Redacted<string> | undefined
  readonly pingMs: number
  readonly reconnectMaxMs: number
  /** Replay the gap from the last slot seen after a reconnect (from_slot), where the endpoint keeps one. */
  readonly replay: boolean
}

// The SDK is loaded when a source first connects, not with this module: 7.0.1's native binding is published
// for linux x64 (glibc, musl) only (its darwin packages stop at 0.0.14; it wants 0.2.1), and loading it
// elsewhere throws, which a static import would turn into a service that does not start even without
// SOLANA_GRPC_URL.
let sdk: Promise<typeof import("@triton-one/yellowstone-grpc")> | undefined
const loadSdk = () => {
  sdk ??= import("@triton-one/yellowstone-grpc")
  return sdk
}
// geyser.proto's values (the SDK's enums, which come with the binding).
const CONFIRMED: CommitmentLevel = 1
const SLOT_CONFIRMED: SlotStatus = 1

export const makeYellowstoneSource = (settings: YellowstoneSourceSettings): StreamSource => {
  const host = hostOf(settings.url)
  const token = settings.token === undefined ? undefined : Redacted.value(settings.token)
  const secrets = [settings.url, token ?? ""]
  const logsHandlers = new Map<string, Set<Handler<LogNotice>>>()
  const accountHandlers = new Map<string, Set<Handler<AccountNotice>>>()
  const slotHandlers = new Set<Handler<bigint>>()
  /** The highest slot of an update handled: where a replay starts. */
  let lastSlot: bigint | undefined
  let stream: ClientDuplexStream | undefined
  let rewrite = false
  /** Bumped by every subscription added or ended: a stream opened on an older set is sent the new one. */
  let version = 0
  let loop: Fiber.RuntimeFiber<never> | undefined

  const nothing = {
    accounts: {},
    slots: {},
    transactions: {},
    transactionsStatus: {},
    blocks: {},
    blocksMeta: {},
    entry: {},
    accountsDataSlice: []
  } satisfies SubscribeRequest
  const request = (fromSlot?: bigint): SubscribeRequest => ({
    ...nothing,
    // A filter with no address would match every account or transaction: left out when there is none.
    accounts:
      accountHandlers.size > 0 ? { accounts: { account: [...accountHandlers.keys()], owner: [], filters: [] } } : {},
    slots: slotHandlers.size > 0 ? { slots: { filterByCommitment: true } } : {},
    transactions:
      logsHandlers.size > 0
        ? {
            transactions: {
              vote: false,
              failed: false,
              accountInclude: [...logsHandlers.keys()],
              accountExclude: [],
              accountRequired: []
            }
          }
        : {},
    commitment: CONFIRMED,
    ...(fromSlot === undefined ? {} : { fromSlot: fromSlot.toString() })
  })

  /** Writes the current filters to the open stream once, however many subscriptions changed in this tick. */
  const filtersChanged = () => {
    if (stream === undefined || rewrite) return
    rewrite = true
    queueMicrotask(() => {
      rewrite = false
      // No from_slot here: Geyser replays again for every request that names one.
      if (stream !== undefined && !stream.destroyed) stream.write(request())
    })
  }

  const malformed = (subscription: "logs" | "account" | "update", reason: string) =>
    Effect.gen(function* () {
      streamMalformed.inc()
      streamNotifications.inc({ subscription, outcome: "malformed" })
      yield* Effect.logWarning("stream: a gRPC update that cannot be read was skipped").pipe(
        Effect.annotateLogs({ host, subscription, reason })
      )
    })

  const seenSlot = (slot: bigint) => {
    if (lastSlot === undefined || slot > lastSlot) lastSlot = slot
  }

  const onTransaction = (update: SubscribeUpdate, replayedUpTo: bigint | undefined) =>
    Effect.gen(function* () {
      const body = update.transaction
      if (body === undefined) return
      const slot = BigInt(body.slot)
      const info = body.transaction
      const view = info === undefined ? undefined : viewOf(info, slot)
      if (info === undefined || view === undefined) return yield* malformed("logs", "transaction not whole")
      seenSlot(slot)
      const backfilled = replayedUpTo !== undefined && slot <= replayedUpTo
      if (backfilled) streamBackfilled.inc()
      const notice: LogNotice = {
        signature: toBase58(info.signature),
        slot,
        failed: view.meta?.err !== null,
        logs: info.meta?.logMessagesNone === true ? undefined : (info.meta?.logMessages ?? []),
        backfilled,
        transaction: view
      }
      // Every key the transaction loads, as logsSubscribe's `mentions` and Geyser's account_include match.
      const keys = new Set([
        ...view.transaction.message.accountKeys,
        ...(view.meta?.loadedAddresses?.writable ?? []),
        ...(view.meta?.loadedAddresses?.readonly ?? [])
      ])
      for (const key of keys) for (const handler of logsHandlers.get(key) ?? []) yield* handler(notice)
    })

  const onAccount = (update: SubscribeUpdate) =>
    Effect.gen(function* () {
      const body = update.account
      if (body === undefined) return
      const account: SubscribeUpdateAccountInfo | undefined = body.account
      if (account === undefined || !isKey(account.pubkey)) return yield* malformed("account", "account not whole")
      const slot = BigInt(body.slot)
      seenSlot(slot)
      // A closed account is written with no lamports.
      const notice: AccountNotice = { slot, data: account.lamports === "0" ? undefined : account.data }
      for (const handler of accountHandlers.get(toBase58(account.pubkey)) ?? []) yield* handler(notice)
    })

  const onUpdate = (update: SubscribeUpdate, replayedUpTo: bigint | undefined) => {
    if (update.transaction !== undefined) return onTransaction(update, replayedUpTo)
    if (update.account !== undefined) return onAccount(update)
    if (update.slot !== undefined) {
      const slot = BigInt(update.slot.slot)
      if (update.slot.status !== SLOT_CONFIRMED) return Effect.void
      return Effect.forEach(slotHandlers, (handler) => handler(slot), { discard: true })
    }
    if (update.ping !== undefined || update.pong !== undefined) return Effect.void
    return malformed("update", "an update of a kind not subscribed")
  }

  /** One Subscribe stream, from connect to failure. */
  const session = (connected: () => void) =>
    Effect.scoped(
      Effect.gen(function* () {
        const { default: Client } = yield* Effect.tryPromise(loadSdk)
        const client = new Client(settings.url, token, { grpcConnectTimeout: 10_000 })
        yield* Effect.tryPromise(() => client.connect())
        let fromSlot: bigint | undefined
        let replayedUpTo: bigint | undefined
        if (settings.replay && lastSlot !== undefined) {
          const resume = lastSlot
          const first = yield* Effect.tryPromise(() => client.subscribeReplayInfo()).pipe(
            Effect.map((info) => (info.firstAvailable === undefined ? undefined : BigInt(info.firstAvailable))),
            Effect.orElseSucceed(() => undefined)
          )
          if (first !== undefined) {
            // Not before the first slot the endpoint still keeps.
            fromSlot = resume
            if (first > resume) fromSlot = first
          }
        }
        // The stream opens when the endpoint's headers come back; waiting for them is interruptible, and a stream
        // that opens after its session ended is closed then.
        const sent = version
        const opening = client.subscribe(request(fromSlot))
        opening.catch(() => undefined)
        const opened = yield* Effect.tryPromise(() => opening).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(3 * settings.pingMs),
            onTimeout: () => new Error("the stream did not open in three ping periods")
          }),
          Effect.onInterrupt(() =>
            Effect.sync(() => {
              opening.then(
                (late) => late.destroy(),
                () => undefined
              )
            })
          )
        )
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            if (stream === opened) stream = undefined
            opened.destroy()
          })
        )
        // What the replay brings up to the tip as the stream opened was missed while down: backfilled.
        if (fromSlot !== undefined)
          replayedUpTo = BigInt((yield* Effect.tryPromise(() => client.getSlot(CONFIRMED))).slot)
        // Failures come through the iterator below; a listener keeps one from being an unhandled 'error' event.
        opened.on("error", () => undefined)
        stream = opened
        if (version !== sent) filtersChanged()
        const iterator = opened[Symbol.asyncIterator]() as AsyncIterator<SubscribeUpdate>
        let heard = Date.now()
        let pings = 0
        const ping = Effect.gen(function* () {
          if (Date.now() - heard > 3 * settings.pingMs)
            return yield* Effect.fail(new Error("no update, pong or ping for three ping periods"))
          pings += 1
          // A request with a ping is answered with a pong and leaves the stream's filters as they are.
          opened.write({ ...nothing, ping: { id: pings } })
        })
        const read = Effect.gen(function* () {
          let first = true
          while (true) {
            const next = yield* Effect.tryPromise(() => iterator.next())
            if (next.done === true) return yield* Effect.fail(new Error("subscription ended"))
            heard = Date.now()
            if (first) {
              first = false
              connected()
            }
            yield* onUpdate(next.value, replayedUpTo)
          }
        })
        return yield* Effect.raceFirst(
          read,
          Effect.repeat(ping, Schedule.spaced(settings.pingMs)).pipe(Effect.zipRight(Effect.never))
        )
      })
    )

  /** The stream, again and again, until interrupted (when the last subscription ends). */
  const connection: Effect.Effect<never> = Effect.suspend(() => {
    let attempt = 0
    let up = false
    const connected = () => {
      attempt = 0
      up = true
      streamSubscriptions.inc({ subscription: "grpc", state: "up" })
    }
    const lost = (cause: Cause.Cause<unknown>) =>
      Effect.gen(function* () {
        if (up) {
          up = false
          streamSubscriptions.dec({ subscription: "grpc", state: "up" })
        }
        streamReconnects.inc({ subscription: "grpc" })
        streamSubscriptions.inc({ subscription: "grpc", state: "down" })
        yield* (attempt === 0 ? Effect.logInfo : Effect.logDebug)("stream: gRPC subscription lost; reconnecting").pipe(
          Effect.annotateLogs({ host, attempt, reason: reasonOf(Cause.squash(cause), secrets) })
        )
        yield* Effect.sleep(backoff(attempt++, settings.reconnectMaxMs))
        streamSubscriptions.dec({ subscription: "grpc", state: "down" })
      })
    return Effect.forever(Effect.catchAllCause(session(connected), lost)).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          if (up) streamSubscriptions.dec({ subscription: "grpc", state: "up" })
        })
      )
    )
  })

  const size = () => logsHandlers.size + accountHandlers.size + slotHandlers.size

  /** Adds a handler for as long as the returned effect runs; the first starts the stream, the last stops it. */
  const subscribe = (add: () => void, remove: () => void): Effect.Effect<never> =>
    Effect.scoped(
      Effect.acquireRelease(
        Effect.gen(function* () {
          add()
          version += 1
          filtersChanged()
          // Forked from an acquire, which runs uninterruptibly: the fiber would inherit that.
          if (loop === undefined) loop = yield* Effect.forkDaemon(Effect.interruptible(connection))
        }),
        () =>
          Effect.gen(function* () {
            remove()
            version += 1
            if (size() > 0) return filtersChanged()
            const running = loop
            loop = undefined
            if (running !== undefined) yield* Fiber.interrupt(running)
          })
      ).pipe(Effect.zipRight(Effect.never))
    )

  const keyed = <N>(map: Map<string, Set<Handler<N>>>, key: string, handler: Handler<N>) =>
    subscribe(
      () => {
        const set = map.get(key) ?? new Set<Handler<N>>()
        set.add(handler)
        map.set(key, set)
      },
      () => {
        const set = map.get(key)
        set?.delete(handler)
        if (set?.size === 0) map.delete(key)
      }
    )

  return {
    logs: (address, handler) => keyed(logsHandlers, address, handler),
    account: (address, handler) => keyed(accountHandlers, address, handler),
    slots: (handler) =>
      subscribe(
        () => slotHandlers.add(handler),
        () => slotHandlers.delete(handler)
      )
  }
}
