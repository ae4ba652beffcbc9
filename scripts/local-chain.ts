// npm run local-chain [-- --port 8899]
// A local Solana JSON-RPC endpoint for trying the scanner without a provider: the LiteSVM world the
// tests use (test/support/solana), served on 127.0.0.1, with real-shaped tokens built by real
// transactions — one on each pool program, with reserves, an LP mint and a lock where the venue has one,
// plus a frozen-holder token, a Token-2022 token with a transfer fee and a non-transferable one. It prints
// the environment the scanner needs (SOLANA_RPC_URL, SCANNER_REFERENCE_POOL) and each mint with what was
// built, then serves until stopped. Swaps into PumpSwap/CPMM report the program's absence (their
// binaries are not on npm); everything else the scanner reads runs for real.
import { parseArgs } from "node:util"
import { startGeyserServer } from "../test/support/solana/Geyser.ts"
import { pumpCreate, type PumpCreateKind } from "../test/support/solana/Launches.ts"
import { buildPool, type PoolVenue, referenceMarket } from "../test/support/solana/Pools.ts"
import { startRpcServer } from "../test/support/solana/RpcServer.ts"
import { makeWorld } from "../test/support/solana/World.ts"

const { values } = parseArgs({ options: { port: { type: "string", default: "8899" } } })
const port = Number(values.port)
if (!Number.isInteger(port) || port < 1 || port > 65_535)
  throw new RangeError(`--port takes 1-65535; got ${values.port}`)

const world = makeWorld()
// The reference SOL–USDC Whirlpool: 1,000 SOL against 150,000 USDC (SOL at 150 USD).
const { wsol, reference } = await referenceMarket(world)

const rows: Array<{ mint: string; what: string }> = []
const holders = async (mint: Parameters<typeof world.holders>[0]) =>
  world.holders(
    mint,
    await Promise.all(
      [30_000_000_000_000n, 20_000_000_000_000n, 10_000_000_000_000n].map(async (amount) => ({
        owner: await world.signer(1n),
        amount
      }))
    )
  )

const LP_VENUES: ReadonlyArray<PoolVenue> = ["raydium-amm-v4", "raydium-cpmm", "meteora-damm-v1", "pumpswap"]
const VENUES: ReadonlyArray<PoolVenue> = [
  "raydium-amm-v4",
  "raydium-cpmm",
  "raydium-clmm",
  "orca-whirlpool",
  "meteora-dlmm",
  "meteora-damm-v1",
  "meteora-damm-v2",
  "meteora-dbc",
  "pump-fun",
  "pumpswap"
]
const lockers = ["streamflow", "raydium-lp-lock", "jupiter-lock", "jupiter-lock"] as const
for (const venue of VENUES) {
  const mint = await world.mint({ decimals: 6 })
  await holders(mint)
  const lpIndex = LP_VENUES.indexOf(venue)
  const lp =
    lpIndex === -1
      ? undefined
      : {
          incinerated: 400_000_000n,
          locked: 300_000_000n,
          locker: lockers[lpIndex]!,
          unlockAt: new Date(Date.UTC(2027, 5, 30, 12)),
          wallets: [200_000_000n, 100_000_000n],
          burned: 50_000_000n
        }
  await buildPool(world, venue, {
    mint,
    quote: wsol,
    reserveMint: 600_000_000_000_000n,
    reserveQuote: 80_000_000_000n,
    ...(lp === undefined ? {} : { lp })
  })
  rows.push({
    mint: mint.address,
    what: `${venue}: 600,000,000 tokens / 80 SOL${lp === undefined ? "" : `; LP 40 % incinerated, 5 % burned, 30 % in ${lp.locker}${lp.locker === "raydium-lp-lock" ? " (permanent)" : " until 2027-06-30"}`}`
  })
}

const freezer = await world.signer()
const frozen = await world.mint({ decimals: 6, freezeAuthority: freezer })
const [frozenHolder] = await world.holders(frozen, [{ owner: await world.signer(1n), amount: 5_000_000n }])
await world.freeze(frozen, frozenHolder!.account)
rows.push({ mint: frozen.address, what: "SPL token whose only holder is frozen: the sell simulation fails (honeypot)" })
const feeAuthority = await world.signer()
const fee = await world.mint({
  program: "token-2022",
  decimals: 6,
  extensions: {
    transferFee: {
      configAuthority: feeAuthority,
      withdrawAuthority: feeAuthority.address,
      basisPoints: 250,
      maximumFee: 1_000_000n
    }
  }
})
await holders(fee)
rows.push({ mint: fee.address, what: "Token-2022 with a 2.5 % transfer fee: charged in the simulated transfer" })
const locked = await world.mint({ program: "token-2022", decimals: 0, extensions: { nonTransferable: true } })
await world.holders(locked, [{ owner: await world.signer(1n), amount: 5_000n }])
rows.push({ mint: locked.address, what: "non-transferable Token-2022: the sell simulation fails" })

const server = startRpcServer(world, port)
// A Yellowstone gRPC endpoint over the same world (its own port), replaying from the first slot served.
const geyser = await startGeyserServer(world, { replayFrom: world.slot })
console.log(`Local Solana JSON-RPC (LiteSVM) at ${server.url}, slot ${world.slot}\n`)
console.log(`export SOLANA_RPC_URL=${server.url}`)
console.log(`export SOLANA_WS_URL=${server.wsUrl}`)
console.log(`# or, for the Yellowstone gRPC source instead of the WebSocket: export SOLANA_GRPC_URL=${geyser.url}`)
console.log(`export SCANNER_REFERENCE_POOL=${reference.address}   # SOL/USDC Whirlpool, SOL at 150 USD\n`)
for (const row of rows) console.log(`${row.mint}  ${row.what}`)
console.log("\nScan one: npm run cli -- scan --print <mint>   (Ctrl-C stops this server)")
console.log(
  "Launch on pump.fun: type `create`, `create_v2` or `create_v2 usdc` and Enter; `drop` closes every WebSocket and gRPC stream."
)

// Launches on demand, for the watcher (npm start with SOLANA_WS_URL or SOLANA_GRPC_URL): each prints its mint and time.
for await (const line of console) {
  const [command, quote] = line.trim().split(/\s+/)
  if (command === "drop") {
    server.pubsub.drop()
    geyser.controls.drop()
    console.log("dropped every WebSocket and gRPC stream")
    continue
  }
  if (command !== "create" && command !== "create_v2") continue
  const launch = await pumpCreate(world, { kind: command as PumpCreateKind, quote: quote === "usdc" ? "usdc" : "sol" })
  console.log(
    `${new Date().toISOString()}  ${command}  mint ${launch.mint.address}  signature ${launch.transaction.signature}`
  )
}
process.once("SIGINT", () => {
  server.stop()
  geyser.stop()
  process.exit(0)
})
