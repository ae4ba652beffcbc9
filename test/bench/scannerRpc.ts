import { lamports } from "@solana/kit"
import { USDC } from "../../src/workers/Scanner/Pools/Quotes.ts"
import { buildPool, type LockerLabel, type PoolVenue } from "../support/solana/Pools.ts"
import { startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld, NATIVE_MINT } from "../support/solana/World.ts"

// The JSON-RPC side of the scanner bench, in its own process (pinned to its own core by
// test/bench/scanner.ts). The world holds the reference SOL–USDC Whirlpool (1,000 SOL against 150,000
// USDC: SOL at 150 USD) and MINTS mints, each built so that a full scan runs every one of its six stages:
//   - SPL and Token-2022 mints in turn, Metaplex metadata on the SPL ones;
//   - 18 holders, every third a wallet with SOL (the transfer simulation's source and fee payer);
//   - a Raydium CPMM pool (the first mint: LP locked with Raydium's Burn & Earn) or a PumpSwap pool (LP
//     locked with Jupiter Lock) against WSOL, with an LP mint that has incinerated, locked, burned and wallet
//     holdings (the scan reads its largest holders and the lock behind them);
//   - an Orca Whirlpool (concentrated) against USDC, at the same price.
// The two mint-side vaults and the 18 holders are the 20 largest accounts a scan reads.
// The first line on stdout is the JSON the worker reads (BENCH_RPC); build time goes to stderr.
const mints = Number(process.env.MINTS ?? 50)
const HOLDERS = 18
const LP_RESERVE_MINT = 200_000_000_000_000n // 200 M tokens at 6 decimals
const LP_RESERVE_SOL = 40_000_000_000n // 40 SOL: 6,000 USD
const CL_RESERVE_MINT = 50_000_000_000_000n // 50 M tokens
const CL_RESERVE_USDC = 1_500_000_000n // 1,500 USDC: the same price as the LP pool (3e-5 USD)
const UNLOCK_AT = new Date(Date.UTC(2027, 5, 30, 12))
// The fixture's CPMM vaults are associated accounts of the program-wide authority
// (test/support/solana/Pools.ts `vaults`), so two CPMM pools on one quote would share a quote vault and
// each report the other's reserves; PumpSwap vaults belong to their pool. Hence one CPMM pool, the
// first mint's, and PumpSwap for the rest.
const lpVenueOf = (i: number): { readonly venue: PoolVenue; readonly locker: LockerLabel } =>
  i === 0 ? { venue: "raydium-cpmm", locker: "raydium-lp-lock" } : { venue: "pumpswap", locker: "jupiter-lock" }

const started = performance.now()
const world = makeWorld()
const wsol = await world.quoteMint(NATIVE_MINT, 9)
const usdc = await world.quoteMint(USDC, 6)
// The WSOL deployer funds every SOL vault: top it up for the reference pool and MINTS pools.
world.svm.airdrop(wsol.deployer.address, lamports(BigInt(mints + 10) * LP_RESERVE_SOL + 1_000_000_000_000n))
const reference = await buildPool(world, "orca-whirlpool", {
  mint: wsol,
  quote: usdc,
  reserveMint: 1_000_000_000_000n,
  reserveQuote: 150_000_000_000n
})

const built: Array<string> = []
for (let i = 0; i < mints; i++) {
  const mint = await world.mint({ program: i % 2 === 0 ? "token" : "token-2022", decimals: 6 })
  if (i % 2 === 0)
    await world.metaplex(mint, { name: `Bench ${i}`, symbol: `B${i}`, uri: "https://example.org/b.json" })
  const owners = await Promise.all(
    Array.from({ length: HOLDERS }, (_, j) => (j % 3 === 0 ? world.signer(1n) : undefined))
  )
  await world.holders(
    mint,
    owners.map((owner, j) => ({
      ...(owner === undefined ? {} : { owner }),
      amount: BigInt(10_000_000 - j * 400_000) * 1_000_000n // 10 M down to 3.2 M tokens
    }))
  )
  const lp = lpVenueOf(i)
  await buildPool(world, lp.venue, {
    mint,
    quote: wsol,
    reserveMint: LP_RESERVE_MINT,
    reserveQuote: LP_RESERVE_SOL,
    lp: {
      incinerated: 400_000_000n,
      locked: 300_000_000n,
      locker: lp.locker,
      unlockAt: UNLOCK_AT,
      wallets: [200_000_000n, 100_000_000n],
      burned: 50_000_000n
    }
  })
  await buildPool(world, "orca-whirlpool", {
    mint,
    quote: usdc,
    reserveMint: CL_RESERVE_MINT,
    reserveQuote: CL_RESERVE_USDC
  })
  built.push(mint.address)
}
const server = startRpcServer(world)
console.error(
  `scanner bench world: ${mints} mints, ${HOLDERS} holders, an LP pool and a Whirlpool each, built in ${((performance.now() - started) / 1000).toFixed(1)} s`
)
// What a scan should report as total liquidity: both sides of both pools at SOL 150 USD.
const expectedLiquidityUsd = 2 * ((Number(LP_RESERVE_SOL) / 1e9) * 150 + Number(CL_RESERVE_USDC) / 1e6)
console.log(JSON.stringify({ url: server.url, mints: built, referencePool: reference.address, expectedLiquidityUsd }))
process.on("SIGTERM", () => void server.stop().then(() => process.exit(0)))
