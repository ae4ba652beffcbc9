import { type Address, type EncodedAccount, type ReadonlyUint8Array, address, getBase58Decoder, getBase58Encoder, getBase64Decoder, getBase64Encoder } from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import type { RecordedTransaction, World } from "./World.ts"

// The JSON-RPC methods a scanner uses, answered from a World in mainnet's shapes. u64 values are
// bigint here and leave as JSON numbers (see RpcServer's encoder), as mainnet sends them.

export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message)
  }
}

/** How the server bends what the world holds: accounts reported missing or under another owner, an older slot. */
export interface AccountView {
  readonly missing: ReadonlySet<string>
  readonly owners: ReadonlyMap<string, Address>
  /** Slots subtracted from context.slot for this call (a lagging node); minContextSlot is then not checked. */
  readonly behind: bigint
}

type Params = ReadonlyArray<unknown>
type Config = Record<string, unknown>

const U64_MAX = 18_446_744_073_709_551_615n
const TOKEN_ACCOUNT_SIZE = 165
/** Token-2022 AccountType byte after the 165-byte base (1 mint, 2 account). */
const ACCOUNT_TYPE_ACCOUNT = 2
const toBase58 = (bytes: ReadonlyUint8Array): string => getBase58Decoder().decode(bytes)
const fromBase58 = (text: string): ReadonlyUint8Array => getBase58Encoder().encode(text)
const toBase64 = (bytes: ReadonlyUint8Array): string => getBase64Decoder().decode(bytes)
const fromBase64 = (text: string): ReadonlyUint8Array => getBase64Encoder().encode(text)

const configOf = (params: Params, index: number): Config => {
  const value = params[index]
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Config : {}
}

const addressParam = (params: Params, index: number): Address => {
  const value = params[index]
  if (typeof value !== "string") throw new RpcError(-32602, `Invalid params: expected an address at position ${index}`)
  try { return address(value) } catch { throw new RpcError(-32602, `Invalid param: ${value}`) }
}

const u64At = (data: ReadonlyUint8Array, offset: number): bigint => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)

const uiAmountString = (amount: bigint, decimals: number): string => {
  if (decimals === 0) return amount.toString()
  const digits = amount.toString().padStart(decimals + 1, "0")
  const fraction = digits.slice(-decimals).replace(/0+$/, "")
  return fraction === "" ? digits.slice(0, -decimals) : `${digits.slice(0, -decimals)}.${fraction}`
}

const tokenAmount = (amount: bigint, decimals: number) => ({
  amount: amount.toString(),
  decimals,
  uiAmount: Number(uiAmountString(amount, decimals)),
  uiAmountString: uiAmountString(amount, decimals)
})

export const makeRpcMethods = (world: World, view: () => AccountView) => {
  const contextSlot = (config: Config): bigint => {
    const { behind } = view()
    const slot = world.slot - behind
    const minimum = config["minContextSlot"]
    if (behind === 0n && typeof minimum === "number" && BigInt(minimum) > slot) {
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: Number(slot) })
    }
    return slot
  }
  const withContext = <A>(config: Config, value: A) => ({ context: { apiVersion: "2.2.7", slot: contextSlot(config) }, value })

  const viewed = (account: EncodedAccount): EncodedAccount | undefined => {
    const { missing, owners } = view()
    if (missing.has(account.address)) return undefined
    const owner = owners.get(account.address)
    return owner === undefined ? account : { ...account, programAddress: owner }
  }
  const accountAt = (at: Address): EncodedAccount | undefined => {
    const account = world.svm.getAccount(at)
    return account.exists ? viewed(account) : undefined
  }
  // getProgramAccounts copies every account into JS (~17 ms for 1,000 token accounts): keep the copy
  // until the world changes. Faults still apply per read, through `viewed`.
  const programAccounts = new Map<string, { readonly version: number; readonly accounts: ReturnType<World["svm"]["getProgramAccounts"]> }>()
  const accountsOf = (program: Address): ReadonlyArray<EncodedAccount> => {
    let cached = programAccounts.get(program)
    if (cached === undefined || cached.version !== world.version) {
      cached = { version: world.version, accounts: world.svm.getProgramAccounts(program) }
      programAccounts.set(program, cached)
    }
    return cached.accounts.flatMap((account) => viewed(account) ?? [])
  }

  const encodeAccount = (account: EncodedAccount, config: Config) => {
    const slice = configOf([config["dataSlice"]], 0)
    const offset = typeof slice["offset"] === "number" ? slice["offset"] : 0
    const data = typeof slice["length"] === "number" ? account.data.slice(offset, offset + slice["length"]) : account.data
    const encoding = config["encoding"] ?? "binary"
    const encoded = encoding === "base64" ? [toBase64(data), "base64"]
      : encoding === "base58" ? [toBase58(data), "base58"]
      : encoding === "binary" ? toBase58(data)
      : (() => { throw new RpcError(-32602, `Invalid params: encoding ${String(encoding)} is not served by the test server`) })()
    return { data: encoded, executable: account.executable, lamports: account.lamports, owner: account.programAddress, rentEpoch: U64_MAX, space: BigInt(account.data.length) }
  }

  const matches = (account: EncodedAccount, filters: unknown): boolean =>
    (Array.isArray(filters) ? filters : []).every((filter: unknown) => {
      const f = configOf([filter], 0)
      if (typeof f["dataSize"] === "number") return account.data.length === f["dataSize"]
      const memcmp = configOf([f["memcmp"]], 0)
      if (typeof memcmp["offset"] !== "number" || typeof memcmp["bytes"] !== "string") throw new RpcError(-32602, "Invalid params: unsupported filter")
      const bytes = memcmp["encoding"] === "base64" ? fromBase64(memcmp["bytes"]) : fromBase58(memcmp["bytes"])
      const at = memcmp["offset"]
      return at + bytes.length <= account.data.length && bytes.every((byte, i) => account.data[at + i] === byte)
    })

  const mintOf = (at: Address) => {
    const mint = accountAt(at)
    if (mint === undefined) throw new RpcError(-32602, "Invalid param: could not find account")
    const isTokenProgram = mint.programAddress === TOKEN_PROGRAM_ADDRESS || mint.programAddress === TOKEN_2022_PROGRAM_ADDRESS
    if (!isTokenProgram || mint.data.length < 82 || mint.data[45] !== 1) throw new RpcError(-32602, "Invalid param: not a Token mint")
    return { account: mint, supply: u64At(mint.data, 36), decimals: mint.data[44] ?? 0 }
  }
  const isTokenAccount = (account: EncodedAccount): boolean =>
    account.data.length === TOKEN_ACCOUNT_SIZE || (account.data.length > TOKEN_ACCOUNT_SIZE && account.data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT)
  const tokenAccounts = (program: Address, field: "mint" | "owner", key: Address): ReadonlyArray<EncodedAccount> => {
    const bytes = fromBase58(key)
    const offset = field === "mint" ? 0 : 32
    return accountsOf(program).filter((account) => isTokenAccount(account) && bytes.every((byte, i) => account.data[offset + i] === byte))
  }

  const transactionJson = (tx: RecordedTransaction, config: Config) => {
    if (config["maxSupportedTransactionVersion"] === undefined) {
      throw new RpcError(-32015, "Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: \"maxSupportedTransactionVersion\": 0")
    }
    const encoding = config["encoding"] ?? "json"
    const transaction = encoding === "base64" ? [tx.wire, "base64"]
      : encoding === "json" ? {
        signatures: tx.signatures,
        message: {
          accountKeys: tx.accountKeys,
          header: tx.header,
          instructions: tx.instructions.map((instruction) => ({ ...instruction, stackHeight: null })),
          recentBlockhash: tx.recentBlockhash,
          addressTableLookups: []
        }
      }
      : (() => { throw new RpcError(-32602, `Invalid params: encoding ${String(encoding)} is not served by the test server`) })()
    return {
      slot: tx.slot,
      blockTime: tx.blockTime,
      version: 0,
      transaction,
      meta: {
        err: null,
        status: { Ok: null },
        fee: tx.fee,
        preBalances: tx.preBalances,
        postBalances: tx.postBalances,
        innerInstructions: [],
        logMessages: tx.logs,
        preTokenBalances: [],
        postTokenBalances: [],
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: tx.computeUnitsConsumed
      }
    }
  }

  const methods: Record<string, (params: Params) => unknown> = {
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.7", "feature-set": 3294202862 }),
    getSlot: (params) => contextSlot(configOf(params, 0)),
    getBlockHeight: (params) => contextSlot(configOf(params, 0)),
    getEpochInfo: (params) => {
      const slot = contextSlot(configOf(params, 0))
      return { absoluteSlot: slot, blockHeight: slot, epoch: slot / 432_000n, slotIndex: slot % 432_000n, slotsInEpoch: 432_000n, transactionCount: BigInt(world.transactions.length) }
    },
    getLatestBlockhash: (params) => withContext(configOf(params, 0), { blockhash: world.svm.latestBlockhash(), lastValidBlockHeight: world.slot + 150n }),
    getMinimumBalanceForRentExemption: (params) => world.svm.minimumBalanceForRentExemption(BigInt(typeof params[0] === "number" ? params[0] : 0)),
    getBalance: (params) => withContext(configOf(params, 1), accountAt(addressParam(params, 0))?.lamports ?? 0n),
    getAccountInfo: (params) => {
      const config = configOf(params, 1)
      const account = accountAt(addressParam(params, 0))
      return withContext(config, account === undefined ? null : encodeAccount(account, config))
    },
    getMultipleAccounts: (params) => {
      const config = configOf(params, 1)
      const addresses = Array.isArray(params[0]) ? params[0] : []
      if (addresses.length > 100) throw new RpcError(-32602, "Too many inputs provided; max 100")
      return withContext(config, addresses.map((_, i) => {
        const account = accountAt(addressParam(addresses, i))
        return account === undefined ? null : encodeAccount(account, config)
      }))
    },
    getProgramAccounts: (params) => {
      const config = configOf(params, 1)
      const found = accountsOf(addressParam(params, 0))
        .filter((account) => matches(account, config["filters"]))
        .map((account) => ({ pubkey: account.address, account: encodeAccount(account, config) }))
      return config["withContext"] === true ? withContext(config, found) : (contextSlot(config), found)
    },
    getTokenSupply: (params) => {
      const config = configOf(params, 1)
      const { supply, decimals } = mintOf(addressParam(params, 0))
      return withContext(config, tokenAmount(supply, decimals))
    },
    getTokenLargestAccounts: (params) => {
      const config = configOf(params, 1)
      const mint = addressParam(params, 0)
      const { account, decimals } = mintOf(mint)
      const largest = tokenAccounts(account.programAddress, "mint", mint)
        .map((holder) => ({ address: holder.address, amount: u64At(holder.data, 64) }))
        .sort((a, b) => a.amount === b.amount ? a.address.localeCompare(b.address) : a.amount > b.amount ? -1 : 1)
        .slice(0, 20)
      return withContext(config, largest.map((holder) => ({ address: holder.address, ...tokenAmount(holder.amount, decimals) })))
    },
    getTokenAccountsByOwner: (params) => {
      const owner = addressParam(params, 0)
      const filter = configOf(params, 1)
      const config = configOf(params, 2)
      const mint = typeof filter["mint"] === "string" ? address(filter["mint"]) : undefined
      const programs = mint !== undefined
        ? [accountAt(mint)?.programAddress ?? TOKEN_PROGRAM_ADDRESS]
        : typeof filter["programId"] === "string" ? [address(filter["programId"])]
        : (() => { throw new RpcError(-32602, "Invalid params: expected mint or programId") })()
      const found = programs.flatMap((program) => tokenAccounts(program, "owner", owner))
        .filter((account) => mint === undefined || toBase58(account.data.slice(0, 32)) === mint)
      return withContext(config, found.map((account) => ({ pubkey: account.address, account: encodeAccount(account, config) })))
    },
    getSignaturesForAddress: (params) => {
      const config = configOf(params, 1)
      contextSlot(config)
      const limit = typeof config["limit"] === "number" ? config["limit"] : 1000
      if (limit < 1 || limit > 1000) throw new RpcError(-32602, "Invalid limit; max 1000")
      let history = world.signaturesFor(addressParam(params, 0))
      if (typeof config["before"] === "string") {
        const at = history.findIndex((tx) => tx.signature === config["before"])
        history = at === -1 ? [] : history.slice(at + 1)
      }
      if (typeof config["until"] === "string") {
        const at = history.findIndex((tx) => tx.signature === config["until"])
        if (at !== -1) history = history.slice(0, at)
      }
      return history.slice(0, limit).map((tx) => ({
        signature: tx.signature, slot: tx.slot, err: null, memo: null, blockTime: tx.blockTime, confirmationStatus: "finalized"
      }))
    },
    getTransaction: (params) => {
      const signature = params[0]
      if (typeof signature !== "string") throw new RpcError(-32602, "Invalid params: expected a signature")
      const tx = world.transaction(signature)
      return tx === undefined ? null : transactionJson(tx, configOf(params, 1))
    }
  }
  return methods
}
