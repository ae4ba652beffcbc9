import { SqlClient } from "@effect/sql"
import { Config, Duration, Effect, Layer, Option, Schedule } from "effect"
import { Accounts } from "./Accounts.ts"
import { hashKey, isWellFormedKey } from "./ApiKey.ts"
import { RateLimited } from "./Errors.ts"
import type { HeaderStanding } from "./RateLimitHeaders.ts"

export interface RateDecision {
  readonly admitted: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetSeconds: number
}

const MINUTE_MS = 60_000
const KEY_CACHE_MS = 60_000
const MAX_CACHED_KEYS = 10_000

/** The decision of every call when there is no limit. */
const UNLIMITED: RateDecision = { admitted: true, limit: 0, remaining: 0, resetSeconds: 60 }

/** Fixed one-minute windows per client, forgotten when the minute turns (memory stays bounded). */
export const makeWindows = (limit: number) => {
  let minute = 0
  let counts = new Map<string, number>()
  /** Gives back an admission of this minute (a call handed to another path, which admits it again). */
  const release = (client: string, now: number) => {
    const used = counts.get(client)
    if (Math.floor(now / MINUTE_MS) * MINUTE_MS === minute && used !== undefined && used > 0)
      counts.set(client, used - 1)
  }
  // No limit: every call is admitted and no window is kept (the standing of a call without a limit is never shown).
  if (limit === 0)
    return Object.assign((_client: string, _now: number): RateDecision => UNLIMITED, {
      release: (_client: string, _now: number) => {}
    })
  return Object.assign(
    (client: string, now: number): RateDecision => {
      const current = Math.floor(now / MINUTE_MS) * MINUTE_MS
      if (current !== minute) {
        minute = current
        counts = new Map()
      }
      const used = counts.get(client) ?? 0
      const admitted = limit === 0 || used < limit
      if (admitted) counts.set(client, used + 1)
      return {
        admitted,
        limit,
        remaining: limit === 0 ? 0 : Math.max(0, limit - used - (admitted ? 1 : 0)),
        resetSeconds: Math.max(1, Math.ceil((current + MINUTE_MS - now) / 1000))
      }
    },
    { release }
  )
}

const PublicTrafficConfig = Config.all({
  perMinute: Config.integer("PUBLIC_RATE_LIMIT_PER_MINUTE").pipe(
    Config.validate({
      message: "PUBLIC_RATE_LIMIT_PER_MINUTE must be >= 0 (0 turns the limit off)",
      validation: (n) => n >= 0
    }),
    Config.withDefault(1_200)
  ),
  trustProxy: Config.boolean("TRUST_PROXY").pipe(Config.withDefault(false))
})

// The open risk-check routes: a per-client limit per minute and attribution of traffic to the account
// of an optional X-Api-Key. Both stay off the database on the hot path: windows live in this process,
// key lookups are cached for a minute, and attributed counts are flushed in the background. Each step
// has one synchronous definition, which the Bun fast path calls as it is and the HttpApi path through
// an Effect.
const makePublicTraffic = (config: { readonly perMinute: number; readonly trustProxy: boolean }) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const sql = yield* SqlClient.SqlClient
    const windows = makeWindows(config.perMinute)
    const keyCache = new Map<string, { readonly accountId: string | null; readonly until: number }>()
    let pending = new Map<string, number>()

    const flush = Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const batch = pending
      pending = new Map()
      return sql`
          insert into public_usage as p (account_id, period, requests)
          select account_id, date_trunc('month', now() at time zone 'utc')::date, requests
          from unnest(${[...batch.keys()]}::uuid[], ${[...batch.values()]}::bigint[]) as t(account_id, requests)
          on conflict (account_id, period) do update set requests = p.requests + excluded.requests`.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) =>
          Effect.zipRight(
            Effect.sync(() => {
              for (const [account, count] of batch) pending.set(account, (pending.get(account) ?? 0) + count)
            }),
            Effect.logWarning("public usage flush failed; will retry", cause)
          )
        )
      )
    })
    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(Duration.seconds(5))))
    yield* Effect.addFinalizer(() => flush)

    const accountOf = (apiKey: string, now: number) => {
      const hash = hashKey(apiKey)
      const cached = keyCache.get(hash)
      if (cached !== undefined && cached.until > now) return Effect.succeed(cached.accountId)
      return accounts.authenticate(apiKey).pipe(
        Effect.map((caller) => Option.getOrNull(Option.map(caller, (found) => found.accountId))),
        Effect.tap((accountId) =>
          Effect.sync(() => {
            if (keyCache.size >= MAX_CACHED_KEYS) keyCache.clear()
            keyCache.set(hash, { accountId, until: now + KEY_CACHE_MS })
          })
        ),
        Effect.orElseSucceed(() => null) // an optional key never fails the call
      )
    }

    const count = (accountId: string | null) => {
      if (accountId !== null) pending.set(accountId, (pending.get(accountId) ?? 0) + 1)
      return Option.fromNullable(accountId)
    }

    /** The account of a valid key when it needs no database read; undefined when it must be looked up. */
    const cachedAccountOf = (apiKey: string): Option.Option<string> | undefined => {
      if (!isWellFormedKey(apiKey)) return Option.none()
      const cached = keyCache.get(hashKey(apiKey))
      return cached === undefined || cached.until <= Date.now() ? undefined : count(cached.accountId)
    }

    return {
      trustProxy: config.trustProxy,
      limited: config.perMinute > 0,
      /** Write the attributed counts now (also done every 5 s and at shutdown). */
      flush,
      /** One call of `client` against its minute window: admitted or not, and the window's standing. */
      admit: (client: string): RateDecision => windows(client, Date.now()),
      /** Takes back one admission (and its attribution) of a call handed on to the path that admits it again. */
      release: (client: string, accountId: string | undefined): void => {
        windows.release(client, Date.now())
        const attributed = accountId === undefined ? undefined : pending.get(accountId)
        if (accountId !== undefined && attributed !== undefined) {
          if (attributed > 1) pending.set(accountId, attributed - 1)
          else pending.delete(accountId)
        }
      },
      cachedAccountOf,
      /** The account of a valid key (its traffic is counted, never charged); none for anything else. */
      accountOf: (apiKey: string): Effect.Effect<Option.Option<string>> => {
        const cached = cachedAccountOf(apiKey)
        if (cached !== undefined) return Effect.succeed(cached)
        return Effect.flatMap(accountOf(apiKey, Date.now()), (accountId) => Effect.sync(() => count(accountId)))
      }
    }
  })

export class PublicTraffic extends Effect.Service<PublicTraffic>()("PublicTraffic", {
  dependencies: [Accounts.Default],
  scoped: Effect.flatMap(PublicTrafficConfig, makePublicTraffic)
}) {}

/** The service with explicit settings: for tests. */
export const publicTrafficWith = (config: { readonly perMinute: number; readonly trustProxy: boolean }) =>
  Layer.scoped(PublicTraffic, Effect.map(makePublicTraffic(config), PublicTraffic.make)).pipe(
    Layer.provide(Accounts.Default)
  )

/** Admits everything and attributes nothing: for tests of routes that are not about traffic. */
export const PublicTrafficUnlimited = Layer.succeed(
  PublicTraffic,
  PublicTraffic.make({
    trustProxy: false,
    limited: false,
    flush: Effect.void,
    admit: () => UNLIMITED,
    release: () => {},
    cachedAccountOf: () => Option.none(),
    accountOf: () => Effect.succeedNone
  })
)

/** Who is calling a public route and whether its minute window admits the call. */
export interface PublicCaller {
  readonly client: string
  readonly accountId: string | undefined
  readonly decision: RateDecision
}

// Behind a load balancer the client is the first X-Forwarded-For hop (TRUST_PROXY=true); otherwise
// the socket's peer, which a client cannot forge.
const clientAddressFrom = (forwardedFor: string | undefined, peer: Peer | undefined, trustProxy: boolean): string => {
  const forwarded = trustProxy ? forwardedFor?.split(",")[0]?.trim() : undefined
  return forwarded || (peer === undefined ? undefined : peerAddress(peer)) || "unknown"
}

/** The socket's peer address, or how to get it: the Bun server asks for it only when a limit needs it. */
export type Peer = string | (() => string)

export const peerAddress = (peer: Peer): string => (typeof peer === "function" ? peer() : peer)

/**
 * The admission of a public call, the same on the fast path and through HttpApi: its client is its
 * account when the key is valid, else its address; one call counts against that client's minute window.
 */
export const admitPublic = (
  traffic: PublicTraffic,
  account: Option.Option<string>,
  forwardedFor: string | undefined,
  peer: Peer | undefined
): PublicCaller => {
  // Without a limit no window is kept, so a caller without a key needs no address (nor the peer's lookup).
  const client = Option.match(account, {
    onNone: () => (traffic.limited ? `ip:${clientAddressFrom(forwardedFor, peer, traffic.trustProxy)}` : "ip"),
    onSome: (id) => `account:${id}`
  })
  return { client, accountId: Option.getOrUndefined(account), decision: traffic.admit(client) }
}

export const publicRateLimited = (decision: RateDecision) =>
  new RateLimited({
    message: `More than ${decision.limit} requests this minute from this client; retry in ${decision.resetSeconds} s.`
  })

/** The rate-limit headers of a public call; none when the limit is off. */
export const publicStandingOf = (decision: RateDecision): HeaderStanding | undefined =>
  decision.limit === 0
    ? undefined
    : {
        rate: { limit: decision.limit, remaining: decision.remaining, resetSeconds: decision.resetSeconds },
        retryAfterSeconds: decision.admitted ? undefined : decision.resetSeconds
      }
