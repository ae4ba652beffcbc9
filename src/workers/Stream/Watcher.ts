import type { Address, Signature } from "@solana/kit"
import { Duration, Effect, Fiber, Schedule } from "effect"
import type { Address as MintAddress } from "../../domain/Address.ts"
import { ScanRequestsRepo } from "../../features/Scans/ScanRequestsRepo.ts"
import { pumpCurveReserve } from "../Scanner/Pools/Pump.ts"
import type { RpcClient } from "../Scanner/Rpc.ts"
import { type StreamConfig, watchedPrograms } from "./Config.ts"
import { eventsOf, largestDropPct, soldBy, type StreamEvent, type TransactionView, tokenStateKindOf } from "./Decode.ts"
import { StreamEventsRepo } from "./EventsRepo.ts"
import { liveCurvesOf, mintStatesOf, PUMP, withoutSupply } from "./TrackedAccounts.ts"
import {
  launchToVerdict,
  streamEvents,
  streamLagSlots,
  streamMalformedInstructions,
  streamNotifications
} from "./Metrics.ts"
import { callsTokenOutsideVenues, isLaunch, namesSwap, stateKindOf, worthReading } from "./Programs.ts"
import type { AccountNotice, LogNotice, StreamSource } from "./Source.ts"

// The watcher: launch programs' logs become launches (the transaction read for its accounts), and the
// tracked mints' logs and accounts, and their deployers' swaps, become state events; each event is recorded once over every
// watcher process and queues a scan ahead of all other work. A notification that cannot be used is
// counted and skipped; nothing here stops the loop.

/** Signatures already handled, oldest dropped first (a reconnect's backfill overlaps the live feed). */
const makeSeen = (capacity: number) => {
  const seen = new Set<string>()
  return (key: string): boolean => {
    if (seen.has(key)) return true
    seen.add(key)
    if (seen.size > capacity) {
      const oldest = seen.values().next()
      if (oldest.done !== true) seen.delete(oldest.value)
    }
    return false
  }
}

export const makeWatcher = (config: StreamConfig, source: StreamSource, client: RpcClient) =>
  Effect.gen(function* () {
    const events = yield* StreamEventsRepo
    const requests = yield* ScanRequestsRepo
    const seen = makeSeen(50_000)
    const reads = yield* Effect.makeSemaphore(config.concurrency)
    let tip = 0n
    /** Launches queued by this process and not yet seen scanned: mint → when the notice arrived. */
    const awaiting = new Map<string, { readonly at: number; readonly since: Date }>()

    const readTransaction = (signature: string) =>
      Effect.tryPromise(() =>
        client
          .forScan(4)
          .rpc.getTransaction(signature as Signature, {
            encoding: "json",
            maxSupportedTransactionVersion: 0,
            commitment: "confirmed"
          })
          .send()
      ).pipe(
        reads.withPermits(1),
        Effect.retry(Schedule.exponential(Duration.millis(100)).pipe(Schedule.intersect(Schedule.recurs(3))))
      )

    /** The transaction as the decoder reads it: the source's when it sent one, else getTransaction's. */
    const readView = (signature: string) =>
      Effect.map(readTransaction(signature), (transaction) => transaction as unknown as TransactionView | null)

    const queue = (event: StreamEvent, backfilled: boolean, receivedAt: number) =>
      Effect.gen(function* () {
        if (!(yield* events.recordOnce(event, backfilled))) return
        const launch = isLaunch(event.kind)
        yield* requests.requestPriority(event.mint as string as MintAddress, launch ? "launch" : "event")
        streamEvents.inc({ program: event.program, kind: event.kind })
        if (launch && !awaiting.has(event.mint))
          awaiting.set(event.mint, { at: receivedAt, since: new Date(Date.now() - 1_000) })
        yield* Effect.logInfo(launch ? "stream: launch queued" : "stream: state event queued").pipe(
          Effect.annotateLogs({
            kind: event.kind,
            mint: event.mint,
            signature: event.signature,
            slot: event.slot.toString(),
            backfilled
          })
        )
      })

    const skip = (subscription: string, outcome: string) =>
      Effect.sync(() => streamNotifications.inc({ subscription, outcome }))

    /** A launch program's transaction: read it when its logs name a watched instruction. */
    const onLaunchLogs = (notice: LogNotice) =>
      Effect.gen(function* () {
        const receivedAt = performance.now()
        if (seen(notice.signature)) return yield* skip("logs", "duplicate")
        if (notice.failed) return yield* skip("logs", "failed_transaction")
        if (notice.logs !== undefined && !worthReading(notice.logs)) return yield* skip("logs", "not_a_launch")
        if (!notice.backfilled && tip > 0n) streamLagSlots.set(Number(tip - notice.slot))
        const transaction = notice.transaction ?? (yield* readView(notice.signature))
        if (transaction === null) return yield* skip("logs", "transaction_not_found")
        yield* skip("logs", "handled")
        const { events: found, malformed } = eventsOf(transaction)
        for (const bad of malformed) {
          streamMalformedInstructions.inc({ program: bad.program, instruction: bad.name })
          yield* Effect.logWarning("stream: a malformed instruction was skipped").pipe(
            Effect.annotateLogs({ program: bad.program, instruction: bad.name, signature: notice.signature })
          )
        }
        for (const event of found) yield* queue(event, notice.backfilled, receivedAt)
      })

    /** A tracked mint's transaction: the instruction names in its logs say what changed. */
    const onMintLogs = (mint: Address) => (notice: LogNotice) =>
      Effect.gen(function* () {
        const receivedAt = performance.now()
        if (seen(`${mint}:${notice.signature}`)) return yield* skip("logs", "duplicate")
        if (notice.failed) return yield* skip("logs", "failed_transaction")
        let logs = notice.logs
        let slot = notice.slot
        let blockTime: Date | null = null
        let read: TransactionView | undefined = notice.transaction
        if (logs === undefined) {
          const transaction = yield* readTransaction(notice.signature)
          if (transaction === null) return yield* skip("logs", "transaction_not_found")
          read = transaction as unknown as TransactionView
          logs = transaction.meta?.logMessages ?? []
          slot = transaction.slot
          blockTime = transaction.blockTime === null ? null : new Date(Number(transaction.blockTime) * 1000)
        }
        let kind = stateKindOf(logs)
        if (kind === undefined && callsTokenOutsideVenues(logs)) {
          // A token program's own instruction (p-token names none in its logs): read what it did.
          const transaction = read ?? (yield* readView(notice.signature))
          if (transaction === null) return yield* skip("logs", "transaction_not_found")
          read = transaction
          slot = transaction.slot
          blockTime = transaction.blockTime === null ? null : new Date(Number(transaction.blockTime) * 1000)
          kind = tokenStateKindOf(transaction, mint)
        }
        if (kind === undefined) return yield* skip("logs", "no_state_change")
        yield* skip("logs", "handled")
        yield* queue(
          { kind, program: mint, mint, signature: notice.signature, slot, blockTime },
          notice.backfilled,
          receivedAt
        )
        // An LP removal: how much of the pool's reserves it took (one getTransaction, unless already read).
        if (kind === "lp_removed") yield* onReserves(mint, notice, receivedAt, read)
      })

    /** A `reserves_dropped` event when a pool reserve fell by at least reserveDropPct in the transaction. */
    const onReserves = (mint: Address, notice: LogNotice, receivedAt: number, read?: TransactionView) =>
      Effect.gen(function* () {
        const transaction = read ?? (yield* readView(notice.signature))
        if (transaction === null) return
        if (largestDropPct(transaction, mint) < config.reserveDropPct) return
        yield* queue(
          {
            kind: "reserves_dropped",
            program: mint,
            mint,
            signature: notice.signature,
            slot: transaction.slot,
            blockTime: transaction.blockTime === null ? null : new Date(Number(transaction.blockTime) * 1000)
          },
          notice.backfilled,
          receivedAt
        )
      })

    /** A tracked mint's deployer's transaction: a swap in which the deployer holds less of the mint is a sale. */
    const onDeployerLogs = (mint: Address, deployer: Address) => (notice: LogNotice) =>
      Effect.gen(function* () {
        const receivedAt = performance.now()
        if (seen(`${mint}:${deployer}:${notice.signature}`)) return yield* skip("logs", "duplicate")
        if (notice.failed) return yield* skip("logs", "failed_transaction")
        if (notice.logs !== undefined && !namesSwap(notice.logs)) return yield* skip("logs", "not_a_sale")
        const transaction = notice.transaction ?? (yield* readView(notice.signature))
        if (transaction === null) return yield* skip("logs", "transaction_not_found")
        if (!soldBy(transaction, deployer, mint)) return yield* skip("logs", "not_a_sale")
        yield* skip("logs", "handled")
        yield* queue(
          {
            kind: "deployer_sell",
            program: mint,
            mint,
            signature: notice.signature,
            slot: transaction.slot,
            blockTime: transaction.blockTime === null ? null : new Date(Number(transaction.blockTime) * 1000),
            user: deployer
          },
          notice.backfilled,
          receivedAt
        )
        yield* onReserves(mint, notice, receivedAt, transaction)
      })

    /** An account notice's event; every watcher sees the same slot, so the key `<prefix>:<slot>` dedupes across processes. */
    const queueAccountEvent = (
      kind: StreamEvent["kind"],
      program: Address,
      mint: Address,
      prefix: string,
      notice: AccountNotice,
      receivedAt: number
    ) =>
      Effect.zipRight(
        skip("account", "handled"),
        queue(
          { kind, program, mint, signature: `${prefix}:${notice.slot}`, slot: notice.slot, blockTime: null },
          false,
          receivedAt
        )
      )
    /** An account handler's failure is counted and logged; the subscription reads on. */
    const skipAccountFailure =
      (what: string) =>
      <A, E, R>(handler: Effect.Effect<A, E, R>) =>
        handler.pipe(
          Effect.catchAllCause((cause) =>
            Effect.zipRight(
              skip("account", "error"),
              Effect.logWarning(`stream: ${what} notification was not handled`, cause)
            )
          )
        )

    /**
     * A tracked mint's account: any change but its supply (authorities, fee, hook, pause...). `initial` is the
     * account as read when tracking began (accountSubscribe sends changes only, so without it the first change
     * would be taken for the starting state and missed); when it could not be read, the first notice is the start.
     */
    const onMintAccount = (mint: Address, initial: string | undefined) => {
      let last = initial
      return (notice: AccountNotice) =>
        Effect.gen(function* () {
          const receivedAt = performance.now()
          const now = notice.data === undefined ? "closed" : withoutSupply(notice.data)
          const changed = last !== undefined && now !== last
          last = now
          if (!changed) return yield* skip("account", "supply_only")
          yield* queueAccountEvent("mint_changed", mint, mint, "account", notice, receivedAt)
        }).pipe(skipAccountFailure("an account"))
    }

    /**
     * A tracked pump.fun mint's bonding curve: the curve holds its SOL as lamports of its own account, so no vault
     * balance shows a dump into it. Its real quote reserve falling at least reserveDropPct below the highest seen
     * since the last such event (one large sell, or several) is a `reserves_dropped` event. A completed curve is
     * left alone: its migration empties it.
     */
    const onCurveAccount = (mint: Address, initial: bigint) => {
      let peak = initial
      return (notice: AccountNotice) =>
        Effect.gen(function* () {
          const receivedAt = performance.now()
          const curve = notice.data === undefined ? undefined : pumpCurveReserve(notice.data)
          if (curve === undefined) return yield* skip("account", "not_a_curve")
          if (curve.complete) return yield* skip("account", "curve_complete")
          const dropPct = peak > 0n ? Number(((peak - curve.realQuote) * 10_000n) / peak) / 100 : 0
          if (curve.realQuote > peak) peak = curve.realQuote
          if (dropPct < config.reserveDropPct) return yield* skip("account", "no_reserve_drop")
          peak = curve.realQuote
          yield* queueAccountEvent("reserves_dropped", PUMP, mint, "curve", notice, receivedAt)
        }).pipe(skipAccountFailure("a curve"))
    }

    // Handlers run in their own fibers so a slow getTransaction does not hold up the next notification.
    const detached =
      <N>(handler: (notice: N) => Effect.Effect<void, unknown>) =>
      (notice: N) =>
        Effect.asVoid(
          Effect.forkDaemon(
            handler(notice).pipe(
              Effect.catchAllCause((cause) =>
                Effect.zipRight(
                  skip("logs", "error"),
                  Effect.logWarning("stream: a notification was not handled", cause)
                )
              )
            )
          )
        )

    /** Keeps one logs and one account subscription per tracked mint, adding and dropping as the set moves. */
    const trackMints = Effect.gen(function* () {
      const running = new Map<string, ReadonlyArray<Fiber.RuntimeFiber<never>>>()
      const sellers = new Map<string, Fiber.RuntimeFiber<never>>()
      /** Tracked mints whose pump.fun curve was looked up: its subscription, or null when none was live. */
      const curves = new Map<string, Fiber.RuntimeFiber<never> | null>()
      const refresh = Effect.gen(function* () {
        const wanted = new Set<string>(yield* events.tracked(config.trackedLimit, config.trackedWindowSeconds * 1000))
        for (const [mint, fibers] of running) {
          if (wanted.has(mint)) continue
          running.delete(mint)
          yield* Fiber.interruptAll(fibers)
        }
        const added = [...wanted].filter((mint) => !running.has(mint)) as Array<Address>
        const states = added.length > 0 ? yield* mintStatesOf(client, added) : new Map<string, string>()
        for (const address of added) {
          running.set(address, [
            yield* Effect.forkDaemon(source.logs(address, detached(onMintLogs(address)))),
            yield* Effect.forkDaemon(source.account(address, onMintAccount(address, states.get(address))))
          ])
        }
        // Deployers: one logs subscription each, for the sales of the mint they launched.
        const deployers = yield* events.deployersOf([...wanted].filter((mint) => !sellers.has(mint)))
        for (const [mint, fiber] of sellers) {
          if (wanted.has(mint)) continue
          sellers.delete(mint)
          yield* Fiber.interrupt(fiber)
        }
        for (const [mint, deployer] of deployers) {
          if (sellers.has(mint)) continue
          const logs = source.logs(deployer as Address, detached(onDeployerLogs(mint as Address, deployer as Address)))
          sellers.set(mint, yield* Effect.forkDaemon(logs))
        }
        // pump.fun curves: one account subscription each, for the reserve drops no vault shows.
        for (const [mint, fiber] of curves) {
          if (wanted.has(mint)) continue
          curves.delete(mint)
          if (fiber !== null) yield* Fiber.interrupt(fiber)
        }
        const unchecked = [...wanted].filter((mint) => !curves.has(mint)) as Array<Address>
        if (unchecked.length > 0) {
          const live = yield* liveCurvesOf(client, unchecked)
          for (const mint of unchecked) curves.set(mint, null)
          for (const { mint, curve, realQuote } of live)
            curves.set(mint, yield* Effect.forkDaemon(source.account(curve, onCurveAccount(mint, realQuote))))
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("stream: tracked mints not refreshed", cause)))
      return yield* Effect.repeat(refresh, Schedule.spaced(Duration.millis(config.trackRefreshMs))).pipe(
        Effect.ensuring(
          Effect.suspend(() =>
            Fiber.interruptAll([
              ...[...running.values()].flat(),
              ...sellers.values(),
              ...[...curves.values()].flatMap((fiber) => (fiber === null ? [] : [fiber]))
            ])
          )
        )
      )
    })

    /** launch_to_verdict_seconds: each queued launch until a scan of it is stored. */
    const measure = Effect.gen(function* () {
      if (awaiting.size === 0) return
      const since = new Date(Math.min(...[...awaiting.values()].map((entry) => entry.since.getTime())))
      const done = yield* events.scannedSince([...awaiting.keys()], since)
      const now = performance.now()
      for (const mint of done) {
        const entry = awaiting.get(mint)
        if (entry !== undefined) launchToVerdict.observe((now - entry.at) / 1000)
        awaiting.delete(mint)
      }
      // A launch whose scan never lands is not measured forever.
      for (const [mint, entry] of awaiting) if (now - entry.at > 600_000) awaiting.delete(mint)
    }).pipe(Effect.catchAllCause((cause) => Effect.logDebug("stream: launch timing not read", cause)))

    /** Retention: events older than eventsRetentionDays, deleted in batches of 10,000 (each watcher may run it; deletes are idempotent). */
    const prune = Effect.gen(function* () {
      let deleted = 0
      for (;;) {
        const batch = yield* events.pruneBatch(config.eventsRetentionDays, 10_000)
        deleted += batch
        if (batch < 10_000) break
      }
      if (deleted > 0) yield* Effect.logInfo("stream: old events pruned").pipe(Effect.annotateLogs({ deleted }))
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("stream: events not pruned", cause)))

    const run = Effect.all(
      [
        ...watchedPrograms(config).map((program) => source.logs(program, detached(onLaunchLogs))),
        source.slots((slot) =>
          Effect.sync(() => {
            tip = slot
          })
        ),
        config.trackedLimit > 0 ? trackMints : Effect.never,
        Effect.repeat(measure, Schedule.spaced(Duration.millis(100))),
        Effect.repeat(prune, Schedule.spaced(Duration.hours(1)))
      ],
      { concurrency: "unbounded", discard: true }
    )

    return { run }
  })
