import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash } from "node:crypto"
import { createSolanaRpc, createSolanaRpcSubscriptions, getBase58Encoder, type Signature } from "@solana/kit"
import { PUMP_IDL, PUMP_PROGRAM, pumpCreate } from "../support/solana/Launches.ts"
import { type RpcServer, startRpcServer } from "../support/solana/RpcServer.ts"
import { makeWorld, type World } from "../support/solana/World.ts"

// The world's PubSub WebSocket through kit's own rpc-subscriptions client, and the pump launches built
// to the public IDL: what a logs subscription sees, and what getTransaction then answers.

let world: World
let server: RpcServer
beforeAll(() => {
  world = makeWorld()
  server = startRpcServer(world)
})
afterAll(() => server.stop())

const anchor = (preimage: string) => [...createHash("sha256").update(preimage).digest().subarray(0, 8)]

describe("PubSub over the world", () => {
  test("the vendored IDL's discriminators are Anchor's sha256 of their names", () => {
    for (const name of ["create", "create_v2", "migrate"]) {
      expect(PUMP_IDL.instructions.find((ix) => ix.name === name)?.discriminator).toEqual(anchor(`global:${name}`))
    }
    for (const name of ["CreateEvent", "CompleteEvent", "CompletePumpAmmMigrationEvent"]) {
      expect(PUMP_IDL.events?.find((event) => event.name === name)?.discriminator).toEqual(anchor(`event:${name}`))
    }
  })

  test("logsSubscribe (mentions), slotSubscribe and accountSubscribe notify in Solana's shapes; getTransaction has the create", async () => {
    const subscriptions = createSolanaRpcSubscriptions(server.wsUrl)
    const abort = new AbortController()
    const logs = await subscriptions
      .logsNotifications({ mentions: [PUMP_PROGRAM] }, { commitment: "confirmed" })
      .subscribe({ abortSignal: abort.signal })
    const slots = await subscriptions.slotNotifications().subscribe({ abortSignal: abort.signal })
    const logIterator = logs[Symbol.asyncIterator]()
    const slotIterator = slots[Symbol.asyncIterator]()
    // The subscribe request is sent when the iterator is first pulled.
    const firstLog = logIterator.next()
    const firstSlot = slotIterator.next()
    while (server.pubsub.subscriptions() < 2) await Bun.sleep(5)
    const launch = await pumpCreate(world, { kind: "create_v2" })
    const notified = await firstLog
    expect(notified.value?.value.signature).toBe(launch.transaction.signature)
    expect(notified.value?.value.logs).toContain("Program log: Instruction: CreateV2")
    expect(notified.value?.context.slot).toBe(launch.transaction.slot)
    const slot = await firstSlot
    expect(typeof slot.value?.slot).toBe("bigint")

    const accounts = await subscriptions
      .accountNotifications(launch.bondingCurve, { commitment: "confirmed", encoding: "base64" })
      .subscribe({ abortSignal: abort.signal })
    const accountIterator = accounts[Symbol.asyncIterator]()
    const change = accountIterator.next()
    while (server.pubsub.subscriptions("accountSubscribe") < 1) await Bun.sleep(5)
    world.setAccount(launch.bondingCurve, PUMP_PROGRAM, new Uint8Array(125))
    expect((await change).value?.value?.owner).toBe(PUMP_PROGRAM)
    abort.abort()

    const rpc = createSolanaRpc(server.url)
    const tx = await rpc
      .getTransaction(launch.transaction.signature as Signature, {
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed"
      })
      .send()
    const keys = tx?.transaction.message.accountKeys ?? []
    const create = tx?.transaction.message.instructions[0]
    expect(keys[create?.programIdIndex ?? -1]).toBe(PUMP_PROGRAM)
    const data = getBase58Encoder().encode(create?.data ?? "")
    expect([...data.slice(0, 8)]).toEqual(anchor("global:create_v2"))
    expect(keys[create?.accounts[0] ?? -1]).toBe(launch.mint.address)
    const inner = tx?.meta?.innerInstructions?.[0]?.instructions[0]
    const event = getBase58Encoder().encode(inner?.data ?? "")
    expect([...event.slice(8, 16)]).toEqual(anchor("event:CreateEvent"))
  })
})
