// The local world of `npm run bench:launches`, in a process of its own: the LiteSVM world, its JSON-RPC
// and PubSub WebSocket server, and the launch generator. test/bench/launches.ts (the service: watcher,
// scanner, webhook workers, app) spawns it on its own core and drives it over IPC (launchProtocol.ts).
// Every launch is the real thing the tests build: the mint, the supply minted to the curve's account and
// the mint authority revoked by real token transactions run by the LiteSVM, the curve account, then the
// create_v2 transaction recorded and notified over the WebSocket as Solana would. What a launch's keys
// decide (key pairs, the funded creator, PDAs, the create's accounts) is made before the timed window;
// the window signs, runs and records each launch's transactions.
import { cpuUsage } from "node:process"
import { type PreparedPumpCreate, preparePumpCreate, pumpCreate, pumpSwapWithdraw } from "../support/solana/Launches.ts"
import { buildPool, type BuiltPool, referenceMarket } from "../support/solana/Pools.ts"
import { startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld } from "../support/solana/World.ts"
import { epochMs, type ServiceMessage, type WorldMessage } from "./launchProtocol.ts"

const cpuMs = (used: NodeJS.CpuUsage) => (used.user + used.system) / 1000
const send = (message: WorldMessage) => {
  process.send?.(message)
}
const pools = Number(process.argv[2] ?? "0")

const world = makeWorld()
// When the world records each transaction, by signature: the start of a launch's timing.
const recordedAt = new Map<string, number>()
world.onChange((change) => {
  if (change.kind === "transaction") recordedAt.set(change.transaction.signature, epochMs())
})
// SOL at 150 USD; each pool holds 600,000,000 tokens against 80 SOL: about 24,000 USD of liquidity.
const { wsol, reference } = await referenceMarket(world)
const built: Array<{ mint: string; pool: BuiltPool }> = []
for (let i = 0; i < pools; i++) {
  const mint = await world.mint({ decimals: 6 })
  await world.holders(mint, [{ amount: 30_000_000_000_000n }, { amount: 20_000_000_000_000n }])
  const pool = await buildPool(world, "pumpswap", {
    mint,
    quote: wsol,
    reserveMint: 600_000_000_000_000n,
    reserveQuote: 80_000_000_000n,
    lp: {
      incinerated: 400_000_000n,
      locked: 300_000_000n,
      locker: "streamflow",
      unlockAt: new Date(Date.UTC(2027, 5, 30)),
      wallets: [200_000_000n],
      burned: 0n
    }
  })
  built.push({ mint: mint.address, pool })
}
const server = startRpcServer(world)

/** CPU time since the launches began (generation and serving), for the "calls" answer. */
let launchesCpu: NodeJS.CpuUsage | undefined
const launches = async (rate: number, seconds: number) => {
  const prepared: Array<PreparedPumpCreate> = []
  for (let i = 0; i < Math.ceil(rate * seconds); i++)
    prepared.push(await preparePumpCreate(world, { kind: "create_v2" }))
  send({ kind: "prepared", count: prepared.length })
  const cpu = cpuUsage()
  launchesCpu = cpu
  const started = performance.now()
  let made = 0
  for (const next of prepared) {
    if (performance.now() - started >= seconds * 1000) break
    const due = started + (made * 1000) / rate
    if (performance.now() < due) await Bun.sleep(due - performance.now())
    const launch = await pumpCreate(world, { kind: "create_v2" }, next)
    const at = recordedAt.get(launch.transaction.signature)
    if (at === undefined) throw new Error("the create_v2 transaction was not recorded")
    made++
    send({ kind: "launched", mint: launch.mint.address, at })
  }
  const elapsedMs = performance.now() - started
  const used = cpuUsage(cpu)
  send({ kind: "launches done", made, elapsedMs, cpuMs: cpuMs(used) })
}

process.on("message", (message: ServiceMessage) => {
  switch (message.kind) {
    case "subscriptions":
      return send({ kind: "subscriptions", id: message.id, count: server.pubsub.subscriptions(message.method) })
    case "withdraw": {
      const entry = built[message.index]
      if (entry === undefined) throw new Error(`no pool ${message.index}`)
      const at = Date.now() // the webhook receiver stamps with Date.now()
      void pumpSwapWithdraw(world, entry.pool, 5n).then(() => send({ kind: "withdrawn", id: message.id, at }))
      return
    }
    case "launches":
      void launches(message.rate, message.seconds)
      return
    case "calls":
      return send({
        kind: "calls",
        id: message.id,
        calls: Object.fromEntries(server.calls),
        cpuMs: launchesCpu === undefined ? 0 : cpuMs(cpuUsage(launchesCpu))
      })
    case "stop":
      void server.stop().then(() => process.exit(0))
  }
})
send({
  kind: "ready",
  url: server.url,
  wsUrl: server.wsUrl,
  reference: reference.address,
  mints: built.map((b) => b.mint)
})
