import { startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld } from "../support/solana/World.ts"

// The JSON-RPC side of the scanner bench, in its own process (pinned to its own core by
// test/bench/scanner.ts): MINTS SPL mints with Metaplex metadata and 20 holders each.
const mints = Number(process.env.MINTS ?? 50)
const world = makeWorld()
const built: Array<string> = []
for (let i = 0; i < mints; i++) {
  const mint = await world.mint({ program: i % 2 === 0 ? "token" : "token-2022", decimals: 6 })
  if (i % 2 === 0) await world.metaplex(mint, { name: `Bench ${i}`, symbol: `B${i}`, uri: "https://example.org/b.json" })
  await world.holders(mint, Array.from({ length: 20 }, (_, j) => ({ amount: BigInt(1_000 + j * 10) })))
  built.push(mint.address)
}
const server = startRpcServer(world)
console.log(JSON.stringify({ url: server.url, mints: built }))
process.on("SIGTERM", () => void server.stop().then(() => process.exit(0)))
