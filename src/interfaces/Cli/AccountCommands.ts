import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { PlanName } from "../../features/Accounts/Plan.ts"
import { SCOPES, type Scope } from "../../domain/Scope.ts"
import { Accounts, type Account, type KeyRecord } from "../../features/Accounts/Accounts.ts"
import { Quota } from "../../features/Accounts/Quota.ts"

// Operator commands for accounts and keys (there is no dashboard yet). A key is printed once, at
// creation; afterwards only its display prefix and id exist outside the database.

const plan = Options.choice("plan", PlanName.literals).pipe(Options.withDefault("free" as const))
const monthlyQuota = Options.integer("monthly-quota").pipe(
  Options.optional,
  Options.withDescription("Enterprise only.")
)
const perMinute = Options.integer("requests-per-minute").pipe(
  Options.optional,
  Options.withDescription("Enterprise only.")
)
const accountId = Args.text({ name: "account-id" })

const planChange = (options: {
  plan: PlanName
  monthlyQuota: Option.Option<number>
  perMinute: Option.Option<number>
}) => ({
  plan: options.plan,
  monthlyQuota: Option.getOrUndefined(options.monthlyQuota),
  requestsPerMinute: Option.getOrUndefined(options.perMinute)
})

const showAccount = (account: Account) =>
  Console.log(
    `account ${account.id}\n  name: ${account.name}\n  plan: ${account.plan} (${account.limits.monthlyQuota} cost units a month, ${account.limits.requestsPerMinute} requests a minute)`
  )

const createAccount = Command.make("create", { name: Options.text("name"), plan, monthlyQuota, perMinute }, (options) =>
  Effect.flatMap(Accounts.create(options.name, planChange(options)), showAccount)
).pipe(
  Command.withDescription("Create an account: --name, --plan free|pro|whale|enterprise (enterprise needs both limits).")
)

const setPlan = Command.make("set-plan", { accountId, plan, monthlyQuota, perMinute }, (options) =>
  Effect.flatMap(Accounts.setPlan(options.accountId, planChange(options)), showAccount)
).pipe(Command.withDescription("Change an account's plan; takes effect on its next request."))

const usage = Command.make("usage", { accountId }, ({ accountId }) =>
  Effect.gen(function* () {
    const account = yield* Accounts.find(accountId)
    const { period, used } = yield* Quota.usedThisMonth(accountId)
    yield* showAccount(account)
    yield* Console.log(
      `  month from ${period} (UTC): ${used} of ${account.limits.monthlyQuota} cost units used, ${Math.max(0, account.limits.monthlyQuota - used)} remaining`
    )
  })
).pipe(Command.withDescription("Show an account's plan and this month's usage."))

export const accountsCommand = Command.make("accounts").pipe(
  Command.withDescription("Manage accounts and plans."),
  Command.withSubcommands([createAccount, setPlan, usage])
)

const scopes = Options.choice("scope", SCOPES).pipe(
  Options.repeated,
  Options.withDescription(`Repeat for each scope: ${SCOPES.join(", ")}.`)
)
const expires = Options.date("expires").pipe(
  Options.optional,
  Options.withDescription("Expiry (ISO 8601 date or time).")
)

const keyLine = (key: KeyRecord) =>
  [
    key.displayPrefix,
    key.id,
    key.scopes.join(","),
    key.createdAt.toISOString(),
    key.lastUsedAt?.toISOString() ?? "never",
    key.expiresAt?.toISOString() ?? "never",
    key.revokedAt === null ? "active" : `revoked ${key.revokedAt.toISOString()}`
  ].join("\t")

const createKey = Command.make("create", { accountId, scopes, expires }, ({ accountId, expires, scopes }) =>
  Effect.gen(function* () {
    const chosen: ReadonlyArray<Scope> = scopes.length === 0 ? ["token:risk:read"] : [...new Set(scopes)]
    const { key, record } = yield* Accounts.createKey(accountId, chosen, Option.getOrNull(expires))
    yield* Console.log(key)
    yield* Console.error(
      `key ${record.id} (${record.displayPrefix}…) with scopes ${record.scopes.join(", ")}: shown once, store it now.`
    )
  })
).pipe(Command.withDescription("Create a key (printed once on stdout). Default scope: token:risk:read."))

const listKeys = Command.make("list", { accountId }, ({ accountId }) =>
  Effect.gen(function* () {
    yield* Console.log(["prefix", "id", "scopes", "created", "last_used", "expires", "status"].join("\t"))
    for (const key of yield* Accounts.listKeys(accountId)) yield* Console.log(keyLine(key))
  })
).pipe(Command.withDescription("List an account's keys: prefix, id, scopes, created, last used, expiry, status."))

const revokeKey = Command.make("revoke", { key: Args.text({ name: "key-id-or-prefix" }) }, ({ key }) =>
  Effect.flatMap(Accounts.revokeKey(key), (record) => Console.log(keyLine(record)))
).pipe(Command.withDescription("Revoke a key by id or display prefix; effective on the next request."))

export const keysCommand = Command.make("keys").pipe(
  Command.withDescription("Manage API keys."),
  Command.withSubcommands([createKey, listKeys, revokeKey])
)
