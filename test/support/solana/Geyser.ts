import { fileURLToPath } from "node:url"
import * as grpc from "@grpc/grpc-js"
import * as protoLoader from "@grpc/proto-loader"
import { getBase58Encoder } from "@solana/kit"
import { makeRpcMethods } from "./RpcMethods.ts"
import type { RecordedTransaction, World, WorldChange } from "./World.ts"

// A Yellowstone (Geyser) gRPC endpoint over a World, on @grpc/grpc-js from the plugin's own proto files
// (geyser/, see its README): Subscribe, SubscribeReplayInfo, GetSlot and Ping. As the plugin does
// (yellowstone-grpc-geyser src/grpc.rs, filters.rs): each request on a Subscribe stream replaces its
// filters, unless it carries a ping, which is answered with a pong; an update names the filters it
// matched; a transactions filter matches on account_include (any key), account_exclude and
// account_required (all keys) (the world's transactions are neither failed nor votes); an account update is
// sent for each written account an accounts filter names; `from_slot` replays the world's transactions from
// that slot (an error when replay is off, or the slot is older than the first kept). Account updates are not
// replayed (the world keeps no account history). Tests drop the streams, refuse new ones and inject updates.

const PROTO_DIR = fileURLToPath(new URL("./geyser/", import.meta.url))
const definition = protoLoader.loadSync("geyser.proto", {
  includeDirs: [PROTO_DIR],
  keepCase: false,
  longs: String,
  enums: String,
  defaults: false,
  oneofs: true
})
const geyser = (grpc.loadPackageDefinition(definition).geyser as grpc.GrpcObject)
  .Geyser as grpc.ServiceClientConstructor

const SYSTEM_PROGRAM = "11111111111111111111111111111111"
const bytes = (base58: string): Buffer => Buffer.from(getBase58Encoder().encode(base58))

interface TransactionFilter {
  readonly vote?: boolean
  readonly failed?: boolean
  readonly accountInclude?: ReadonlyArray<string>
  readonly accountExclude?: ReadonlyArray<string>
  readonly accountRequired?: ReadonlyArray<string>
}
interface AccountFilter {
  readonly account?: ReadonlyArray<string>
  readonly owner?: ReadonlyArray<string>
}
interface Request {
  readonly transactions?: Record<string, TransactionFilter>
  readonly accounts?: Record<string, AccountFilter>
  readonly slots?: Record<string, unknown>
  readonly ping?: { readonly id?: number }
  readonly fromSlot?: string
}
type Call = grpc.ServerDuplexStream<Request, Record<string, unknown>>
interface Stream {
  readonly call: Call
  request: Request
}

interface GeyserControls {
  /** Open Subscribe streams. */
  streams(): number
  /** The addresses each open stream's transactions filters include, by stream. */
  transactionAddresses(): ReadonlyArray<ReadonlyArray<string>>
  /** The accounts each open stream's accounts filters name, by stream. */
  accountAddresses(): ReadonlyArray<ReadonlyArray<string>>
  /** Every request received with a from_slot, in order. */
  readonly fromSlots: Array<bigint>
  /** Ends every stream with UNAVAILABLE, as a provider dropping its connections. */
  drop(): void
  /** While true, a new Subscribe stream is ended with UNAVAILABLE at once. */
  refuse(on: boolean): void
  /** Sends this SubscribeUpdate (proto-loader's object shape) on every open stream. */
  inject(update: Record<string, unknown>): void
  /** Pings received on Subscribe streams. */
  pings(): number
  /** While true, the open streams get nothing, pongs included, and stay open (a half-dead connection). */
  stall(on: boolean): void
}

export interface GeyserServer {
  /** http://127.0.0.1:port */
  readonly url: string
  readonly controls: GeyserControls
  /** The x-token of each Subscribe stream opened. */
  readonly tokens: Array<string | undefined>
  stop(): Promise<void>
}

/** The world's transaction as Geyser's SubscribeUpdateTransactionInfo. */
const transactionInfo = (tx: RecordedTransaction, index: number) => {
  const balance = (entry: RecordedTransaction["preTokenBalances"][number]) => ({
    accountIndex: entry.accountIndex,
    mint: entry.mint,
    owner: entry.owner,
    programId: entry.programId,
    uiTokenAmount: {
      uiAmount: entry.uiTokenAmount.uiAmount ?? 0,
      decimals: entry.uiTokenAmount.decimals,
      amount: entry.uiTokenAmount.amount,
      uiAmountString: entry.uiTokenAmount.uiAmountString
    }
  })
  return {
    signature: bytes(tx.signature),
    isVote: false,
    index: String(index),
    transaction: {
      signatures: tx.signatures.map(bytes),
      message: {
        header: tx.header,
        accountKeys: tx.accountKeys.map(bytes),
        recentBlockhash: bytes(tx.recentBlockhash),
        instructions: tx.instructions.map((instruction) => ({
          programIdIndex: instruction.programIdIndex,
          accounts: Buffer.from(instruction.accounts),
          data: bytes(instruction.data)
        })),
        versioned: true,
        addressTableLookups: []
      }
    },
    meta: {
      fee: String(tx.fee),
      preBalances: tx.preBalances.map(String),
      postBalances: tx.postBalances.map(String),
      innerInstructions: (tx.innerInstructions ?? []).map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map((instruction) => ({
          programIdIndex: instruction.programIdIndex,
          accounts: Buffer.from(instruction.accounts),
          data: bytes(instruction.data),
          stackHeight: instruction.stackHeight
        }))
      })),
      innerInstructionsNone: false,
      logMessages: [...tx.logs],
      logMessagesNone: false,
      preTokenBalances: tx.preTokenBalances.map(balance),
      postTokenBalances: tx.postTokenBalances.map(balance),
      rewards: [],
      loadedWritableAddresses: [],
      loadedReadonlyAddresses: [],
      returnDataNone: true,
      computeUnitsConsumed: String(tx.computeUnitsConsumed)
    }
  }
}

/** The names of the stream's transactions filters that match the transaction (none failed, none a vote). */
const transactionFilters = (request: Request, tx: RecordedTransaction): Array<string> => {
  const keys = new Set<string>(tx.accountKeys)
  return Object.entries(request.transactions ?? {})
    .filter(([, filter]) => {
      const include = filter.accountInclude ?? []
      const required = filter.accountRequired ?? []
      return (
        (include.length === 0 || include.some((key) => keys.has(key))) &&
        !(filter.accountExclude ?? []).some((key) => keys.has(key)) &&
        required.every((key) => keys.has(key))
      )
    })
    .map(([name]) => name)
}

/** The accounts a transaction writes: signers but the read-only ones, then non-signers but the read-only ones. */
const writtenKeys = (tx: RecordedTransaction): Array<string> => {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = tx.header
  return tx.accountKeys.filter(
    (_, index) =>
      index < numRequiredSignatures - numReadonlySignedAccounts ||
      (index >= numRequiredSignatures && index < tx.accountKeys.length - numReadonlyUnsignedAccounts)
  )
}

export const startGeyserServer = async (
  world: World,
  options: {
    /** The first slot `from_slot` may name; undefined: replay is off (SubscribeReplayInfo answers none). */
    readonly replayFrom?: bigint
  } = {}
): Promise<GeyserServer> => {
  const { methods, stop: stopMethods } = makeRpcMethods(world, () => ({
    missing: new Set(),
    owners: new Map(),
    behind: 0n,
    simulations: new Map()
  }))
  const streams = new Set<Stream>()
  const tokens: Array<string | undefined> = []
  const fromSlots: Array<bigint> = []
  let refusing = false
  let stalled = false
  let pings = 0

  const write = (stream: Stream, update: Record<string, unknown>) => {
    if (!stalled && !stream.call.destroyed && !stream.call.writableEnded)
      stream.call.write({ createdAt: new Date(), ...update })
  }

  const sendTransaction = (stream: Stream, tx: RecordedTransaction) => {
    const filters = transactionFilters(stream.request, tx)
    if (filters.length === 0) return
    write(stream, {
      filters,
      transaction: { slot: String(tx.slot), transaction: transactionInfo(tx, world.transactions.indexOf(tx)) }
    })
  }

  const sendAccount = (stream: Stream, address: string, signature?: string) => {
    const filters = Object.entries(stream.request.accounts ?? {})
      .filter(([, filter]) => (filter.account ?? []).includes(address))
      .map(([name]) => name)
    if (filters.length === 0) return
    const answer = methods.getAccountInfo!([address, { encoding: "base64" }]) as {
      readonly value: {
        readonly data: readonly [string, string]
        readonly lamports: bigint
        readonly owner: string
        readonly executable: boolean
        readonly rentEpoch: bigint
      } | null
    }
    const value = answer.value
    write(stream, {
      filters,
      account: {
        slot: String(world.slot),
        isStartup: false,
        account: {
          pubkey: bytes(address),
          lamports: String(value?.lamports ?? 0n),
          owner: bytes(value?.owner ?? SYSTEM_PROGRAM),
          executable: value?.executable ?? false,
          rentEpoch: String(value?.rentEpoch ?? 0n),
          data: value === null ? Buffer.alloc(0) : Buffer.from(value.data[0], "base64"),
          writeVersion: String(world.version),
          ...(signature === undefined ? {} : { txnSignature: bytes(signature) })
        }
      }
    })
  }

  const onChange = (change: WorldChange) => {
    for (const stream of streams) {
      switch (change.kind) {
        case "transaction":
          sendTransaction(stream, change.transaction)
          for (const key of writtenKeys(change.transaction)) sendAccount(stream, key, change.transaction.signature)
          break
        case "account":
          sendAccount(stream, change.address)
          break
        case "slot":
          for (const name of Object.keys(stream.request.slots ?? {})) {
            write(stream, {
              filters: [name],
              slot: { slot: String(change.slot), parent: String(change.parent), status: "SLOT_CONFIRMED" }
            })
          }
      }
    }
  }
  const unsubscribeWorld = world.onChange(onChange)

  const fail = (call: Call, code: grpc.status, details: string) => {
    call.emit("error", { code, details, metadata: new grpc.Metadata() })
  }

  const subscribe = (call: Call) => {
    const token = call.metadata.get("x-token")[0]
    tokens.push(token === undefined ? undefined : String(token))
    if (refusing) return fail(call, grpc.status.UNAVAILABLE, "refused by the test")
    // The plugin (tonic) answers a Subscribe with its headers at once; grpc-js would wait for the first message.
    call.sendMetadata(new grpc.Metadata())
    const stream: Stream = { call, request: {} }
    streams.add(stream)
    call.on("data", (request: Request) => {
      if (request.ping !== undefined && request.ping !== null) {
        pings += 1
        write(stream, { filters: [], pong: { id: request.ping.id ?? 0 } })
        return
      }
      stream.request = request
      if (request.fromSlot === undefined || request.fromSlot === null) return
      const from = BigInt(request.fromSlot)
      fromSlots.push(from)
      if (options.replayFrom === undefined) return fail(call, grpc.status.INTERNAL, "from_slot is not supported")
      if (from < options.replayFrom)
        return fail(
          call,
          grpc.status.OUT_OF_RANGE,
          `broadcast from ${from} is not available, last available: ${options.replayFrom}`
        )
      for (const tx of world.transactions) if (tx.slot >= from) sendTransaction(stream, tx)
    })
    const forget = () => {
      streams.delete(stream)
    }
    call.on("end", () => {
      forget()
      call.end()
    })
    call.on("error", forget)
    call.on("cancelled", forget)
    call.on("close", forget)
  }

  const server = new grpc.Server()
  server.addService(geyser.service, {
    Subscribe: subscribe,
    SubscribeReplayInfo: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      callback(null, options.replayFrom === undefined ? {} : { firstAvailable: String(options.replayFrom) }),
    GetSlot: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, { slot: String(world.slot) }),
    Ping: (call: grpc.ServerUnaryCall<{ count?: number }, unknown>, callback: grpc.sendUnaryData<unknown>) =>
      callback(null, { count: call.request.count ?? 0 })
  })
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error === null ? resolve(bound) : reject(error)
    )
  )

  return {
    url: `http://127.0.0.1:${port}`,
    tokens,
    controls: {
      streams: () => streams.size,
      transactionAddresses: () =>
        [...streams].map((stream) =>
          Object.values(stream.request.transactions ?? {}).flatMap((filter) => filter.accountInclude ?? [])
        ),
      accountAddresses: () =>
        [...streams].map((stream) =>
          Object.values(stream.request.accounts ?? {}).flatMap((filter) => filter.account ?? [])
        ),
      fromSlots,
      drop: () => {
        for (const stream of [...streams]) {
          streams.delete(stream)
          fail(stream.call, grpc.status.UNAVAILABLE, "dropped by the test")
        }
      },
      refuse: (on) => {
        refusing = on
      },
      inject: (update) => {
        for (const stream of streams) write(stream, update)
      },
      pings: () => pings,
      stall: (on) => {
        stalled = on
      }
    },
    stop: async () => {
      unsubscribeWorld()
      stopMethods()
      for (const stream of [...streams]) fail(stream.call, grpc.status.UNAVAILABLE, "server stopped")
      streams.clear()
      server.forceShutdown()
    }
  }
}
