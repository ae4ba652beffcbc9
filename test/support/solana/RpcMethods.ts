import {
  type Address,
  type EncodedAccount,
  type ReadonlyUint8Array,
  type Transaction,
  address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getCompiledTransactionMessageEncoder,
  getTransactionDecoder
} from "@solana/kit"
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import { FailedTransactionMetadata, type TransactionMetadata } from "litesvm"
import type { RecordedTransaction, World } from "./World.ts"

// The JSON-RPC methods a scanner uses, answered from a World in mainnet's shapes. u64 values are
// bigint here and leave as JSON numbers (see RpcServer's encoder), as mainnet sends them.

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown
  ) {
    super(message)
  }
}

/** How the server bends what the world holds: accounts reported missing or under another owner, an older slot. */
export interface AccountView {
  readonly missing: ReadonlySet<string>
  readonly owners: ReadonlyMap<string, Address>
  /** Slots subtracted from context.slot for this call (a lagging node); minContextSlot is then not checked. */
  readonly behind: bigint
  /** Recorded simulateTransaction answers, by the program id whose invocation selects them. */
  readonly simulations: ReadonlyMap<string, RecordedSimulation>
}

/** An account in simulateTransaction's `accounts` list, base64-encoded as mainnet sends it. */
export interface SimulatedAccountJson {
  readonly data: readonly [string, "base64"]
  readonly executable: boolean
  readonly lamports: bigint
  readonly owner: Address
  readonly rentEpoch: bigint
  readonly space: bigint
}

/** simulateTransaction's `value` in mainnet's shape (Agave 2.x/3.x JSON-RPC). */
interface SimulationValue {
  /** null, or mainnet's JSON TransactionError: "AccountNotFound", {"InstructionError":[1,{"Custom":17}]}, ... */
  readonly err: unknown
  readonly logs: ReadonlyArray<string> | null
  /** One per requested address, null where the account is not in the transaction or the simulation failed. */
  readonly accounts: ReadonlyArray<SimulatedAccountJson | null> | null
  readonly unitsConsumed: bigint
  readonly returnData: { readonly programId: Address; readonly data: readonly [string, "base64"] } | null
  readonly innerInstructions?: ReadonlyArray<unknown> | null
  readonly replacementBlockhash: { readonly blockhash: string; readonly lastValidBlockHeight: bigint } | null
  readonly fee?: bigint | null
  readonly loadedAddresses?: {
    readonly readonly: ReadonlyArray<Address>
    readonly writable: ReadonlyArray<Address>
  } | null
  readonly preBalances?: ReadonlyArray<bigint> | null
  readonly postBalances?: ReadonlyArray<bigint> | null
  readonly preTokenBalances?: ReadonlyArray<unknown> | null
  readonly postTokenBalances?: ReadonlyArray<unknown> | null
}

/**
 * A simulateTransaction answer recorded from a program LiteSVM cannot run (a DEX: no binary on npm).
 * `addresses` are the accounts the recorded request asked for, in order; a request that asks for
 * others is refused, so a test proves the client asked for the accounts the answer describes.
 */
export interface RecordedSimulation {
  readonly addresses: ReadonlyArray<Address>
  readonly value: SimulationValue
}

/** An account as simulateTransaction lists it (for building recorded answers). */
export const simulatedAccountJson = (
  owner: Address,
  lamports: bigint,
  data: ReadonlyUint8Array,
  executable = false
): SimulatedAccountJson => ({
  data: [getBase64Decoder().decode(data), "base64"],
  executable,
  lamports,
  owner,
  rentEpoch: 18_446_744_073_709_551_615n,
  space: BigInt(data.length)
})

// Names of LiteSVM's fieldless error enums (const enums: numbers at run time), in declaration order,
// which is the order of agave's TransactionError and InstructionError.
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled"
] as const
const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
  "BorshIoError"
] as const

const instructionErrorJson = (error: unknown): unknown => {
  if (typeof error === "number") return INSTRUCTION_ERRORS[error] ?? "InvalidError"
  const fields = error as { readonly code?: unknown; readonly msg?: unknown }
  if (typeof fields.code === "number") return { Custom: fields.code }
  if (typeof fields.msg === "string") return { BorshIoError: fields.msg }
  return "InvalidError"
}

/** LiteSVM's transaction error as mainnet's JSON (serde's externally tagged enums). */
const transactionErrorJson = (error: ReturnType<FailedTransactionMetadata["err"]>): unknown => {
  if (typeof error === "number") return TRANSACTION_ERRORS[error] ?? "SanitizeFailure"
  const fields = error as unknown as {
    readonly index?: unknown
    readonly accountIndex?: unknown
    readonly err?: unknown
  }
  if (typeof fields.index === "number" && typeof fields.err === "function") {
    return { InstructionError: [fields.index, instructionErrorJson((fields.err as () => unknown).call(error))] }
  }
  if (typeof fields.index === "number") return { DuplicateInstruction: fields.index }
  if (typeof fields.accountIndex === "number") {
    const name = error.constructor.name.includes("Restricted")
      ? "ProgramExecutionTemporarilyRestricted"
      : "InsufficientFundsForRent"
    return { [name]: { account_index: fields.accountIndex } }
  }
  return "SanitizeFailure"
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
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Config) : {}
}

const addressParam = (params: Params, index: number): Address => {
  const value = params[index]
  if (typeof value !== "string") throw new RpcError(-32602, `Invalid params: expected an address at position ${index}`)
  try {
    return address(value)
  } catch {
    throw new RpcError(-32602, `Invalid param: ${value}`)
  }
}

const u64At = (data: ReadonlyUint8Array, offset: number): bigint =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)

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
    const minimum = config.minContextSlot
    if (behind === 0n && typeof minimum === "number" && BigInt(minimum) > slot) {
      throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: Number(slot) })
    }
    return slot
  }
  const withContext = <A>(config: Config, value: A) => ({
    context: { apiVersion: "2.2.7", slot: contextSlot(config) },
    value
  })

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
  // getProgramAccounts over an index of each program asked about, as a node keeps one: copied from the
  // LiteSVM once (~17 ms for 1,000 token accounts), then kept by reading again only the accounts each
  // change wrote (a transaction's keys: no account outside them can change; an account set directly).
  // Faults still apply per read, through `viewed`.
  const indexed = new Map<string, Map<string, EncodedAccount>>()
  const written = new Set<string>()
  const stopIndex = world.onChange((change) => {
    if (change.kind === "transaction") for (const key of change.transaction.accountKeys) written.add(key)
    else if (change.kind === "account") written.add(change.address)
  })
  const catchUp = () => {
    if (indexed.size > 0) {
      for (const at of written) {
        const account = world.svm.getAccount(at as Address)
        for (const [program, accounts] of indexed) {
          if (account.exists && account.programAddress === program) accounts.set(at, account)
          else accounts.delete(at)
        }
      }
    }
    written.clear()
  }
  const accountsOf = (program: Address): ReadonlyArray<EncodedAccount> => {
    catchUp()
    let accounts = indexed.get(program)
    if (accounts === undefined) {
      accounts = new Map(world.svm.getProgramAccounts(program).map((account) => [account.address, account]))
      indexed.set(program, accounts)
    }
    const { missing, owners } = view()
    const all = [...accounts.values()]
    return missing.size === 0 && owners.size === 0 ? all : all.flatMap((account) => viewed(account) ?? [])
  }

  const encodeAccount = (account: EncodedAccount, config: Config) => {
    const slice = configOf([config.dataSlice], 0)
    const offset = typeof slice.offset === "number" ? slice.offset : 0
    const data = typeof slice.length === "number" ? account.data.slice(offset, offset + slice.length) : account.data
    const encoding = config.encoding ?? "binary"
    const encoded =
      encoding === "base64"
        ? [toBase64(data), "base64"]
        : encoding === "base58"
          ? [toBase58(data), "base58"]
          : encoding === "binary"
            ? toBase58(data)
            : (() => {
                throw new RpcError(
                  -32602,
                  `Invalid params: encoding ${String(encoding)} is not served by the test server`
                )
              })()
    return {
      data: encoded,
      executable: account.executable,
      lamports: account.lamports,
      owner: account.programAddress,
      rentEpoch: U64_MAX,
      space: BigInt(account.data.length)
    }
  }

  const matches = (account: EncodedAccount, filters: unknown): boolean =>
    (Array.isArray(filters) ? filters : []).every((filter: unknown) => {
      const f = configOf([filter], 0)
      if (typeof f.dataSize === "number") return account.data.length === f.dataSize
      const memcmp = configOf([f.memcmp], 0)
      if (typeof memcmp.offset !== "number" || typeof memcmp.bytes !== "string")
        throw new RpcError(-32602, "Invalid params: unsupported filter")
      const bytes = memcmp.encoding === "base64" ? fromBase64(memcmp.bytes) : fromBase58(memcmp.bytes)
      const at = memcmp.offset
      return at + bytes.length <= account.data.length && bytes.every((byte, i) => account.data[at + i] === byte)
    })

  const mintOf = (at: Address) => {
    const mint = accountAt(at)
    if (mint === undefined) throw new RpcError(-32602, "Invalid param: could not find account")
    const isTokenProgram =
      mint.programAddress === TOKEN_PROGRAM_ADDRESS || mint.programAddress === TOKEN_2022_PROGRAM_ADDRESS
    if (!isTokenProgram || mint.data.length < 82 || mint.data[45] !== 1)
      throw new RpcError(-32602, "Invalid param: not a Token mint")
    return { account: mint, supply: u64At(mint.data, 36), decimals: mint.data[44] ?? 0 }
  }
  const isTokenAccount = (account: EncodedAccount): boolean =>
    account.data.length === TOKEN_ACCOUNT_SIZE ||
    (account.data.length > TOKEN_ACCOUNT_SIZE && account.data[TOKEN_ACCOUNT_SIZE] === ACCOUNT_TYPE_ACCOUNT)
  const tokenAccounts = (program: Address, field: "mint" | "owner", key: Address): ReadonlyArray<EncodedAccount> => {
    const bytes = fromBase58(key)
    const offset = field === "mint" ? 0 : 32
    return accountsOf(program).filter(
      (account) => isTokenAccount(account) && bytes.every((byte, i) => account.data[offset + i] === byte)
    )
  }

  const transactionJson = (tx: RecordedTransaction, config: Config) => {
    if (config.maxSupportedTransactionVersion === undefined) {
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0'
      )
    }
    const encoding = config.encoding ?? "json"
    const transaction =
      encoding === "base64"
        ? [tx.wire, "base64"]
        : encoding === "json"
          ? {
              signatures: tx.signatures,
              message: {
                accountKeys: tx.accountKeys,
                header: tx.header,
                instructions: tx.instructions.map((instruction) => ({ ...instruction, stackHeight: null })),
                recentBlockhash: tx.recentBlockhash,
                addressTableLookups: []
              }
            }
          : (() => {
              throw new RpcError(
                -32602,
                `Invalid params: encoding ${String(encoding)} is not served by the test server`
              )
            })()
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
        innerInstructions: tx.innerInstructions ?? [],
        logMessages: tx.logs,
        preTokenBalances: tx.preTokenBalances,
        postTokenBalances: tx.postTokenBalances,
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: tx.computeUnitsConsumed
      }
    }
  }

  /** The programs a transaction's top-level instructions invoke. */
  const decodeMessage = (transaction: Transaction) => {
    const compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
    if (compiled.version === 1)
      throw new RpcError(-32602, "invalid transaction: transaction version 1 is not served by the test server")
    return compiled
  }
  const invokedPrograms = (transaction: Transaction): ReadonlyArray<Address> => {
    const compiled = decodeMessage(transaction)
    return compiled.instructions.flatMap(
      (instruction) => compiled.staticAccounts[instruction.programAddressIndex] ?? []
    )
  }

  const innerInstructionsJson = (meta: TransactionMetadata) =>
    meta.innerInstructions().flatMap((inner, index) =>
      inner.length === 0
        ? []
        : [
            {
              index,
              instructions: inner.map((entry) => {
                const compiled = entry.instruction()
                return {
                  programIdIndex: compiled.programIdIndex(),
                  accounts: [...compiled.accounts()],
                  data: toBase58(compiled.data()),
                  stackHeight: entry.stackHeight()
                }
              })
            }
          ]
    )

  // simulateTransaction, run for real on the LiteSVM without committing anything. sigVerify false turns
  // LiteSVM's signature check off for this call (the signatures may be zeros); replaceRecentBlockhash
  // puts the latest blockhash into the message first, as a node does.
  const simulateTransaction = (params: Params): unknown => {
    const config = configOf(params, 1)
    const encoded = params[0]
    if (typeof encoded !== "string") throw new RpcError(-32602, "Invalid params: expected an encoded transaction")
    const encoding = config.encoding ?? "base58"
    if (encoding !== "base58" && encoding !== "base64")
      throw new RpcError(
        -32602,
        `Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`
      )
    const sigVerify = config.sigVerify === true
    const replace = config.replaceRecentBlockhash === true
    if (sigVerify && replace) throw new RpcError(-32602, "sigVerify may not be used with replaceRecentBlockhash")
    let transaction: Transaction
    try {
      transaction = getTransactionDecoder().decode(encoding === "base64" ? fromBase64(encoded) : fromBase58(encoded))
    } catch (error) {
      throw new RpcError(-32602, `invalid transaction: failed to deserialize VersionedTransaction: ${String(error)}`)
    }
    const accountsConfig = configOf([config.accounts], 0)
    const requested = Array.isArray(accountsConfig.addresses) ? accountsConfig.addresses : undefined
    if (requested !== undefined && accountsConfig.encoding !== undefined && accountsConfig.encoding !== "base64") {
      throw new RpcError(
        -32602,
        `Invalid params: accounts encoding ${String(accountsConfig.encoding)} is not served by the test server`
      )
    }
    const addresses = requested?.map((_, i) => addressParam(requested, i))
    const slot = contextSlot(config)
    const context = { apiVersion: "2.2.7", slot }

    const recorded = invokedPrograms(transaction)
      .map((program) => view().simulations.get(program))
      .find((entry) => entry !== undefined)
    if (recorded !== undefined) {
      if (JSON.stringify(addresses ?? []) !== JSON.stringify(recorded.addresses)) {
        throw new RpcError(
          -32602,
          `the recorded simulation answers for accounts [${recorded.addresses.join(", ")}], not [${(addresses ?? []).join(", ")}]`
        )
      }
      return { context, value: recorded.value }
    }

    const blockhash = world.svm.latestBlockhash()
    if (replace) {
      const compiled = decodeMessage(transaction)
      const messageBytes = getCompiledTransactionMessageEncoder().encode({ ...compiled, lifetimeToken: blockhash })
      transaction = { ...transaction, messageBytes: messageBytes as Transaction["messageBytes"] }
    }
    const compiled = decodeMessage(transaction)
    const keys = compiled.staticAccounts
    const balances = () => keys.map((key) => world.svm.getBalance(key) ?? 0n)
    const preBalances = balances()
    const inner = Reflect.get(world.svm, "inner") as { getSigverify(): boolean }
    const wasVerifying = inner.getSigverify()
    let result: ReturnType<World["svm"]["simulateTransaction"]>
    try {
      world.svm.withSigverify(sigVerify)
      result = world.svm.simulateTransaction(transaction)
    } catch (error) {
      if (sigVerify) throw new RpcError(-32003, "Transaction signature verification failure")
      throw error
    } finally {
      world.svm.withSigverify(wasVerifying)
    }
    const failed = result instanceof FailedTransactionMetadata ? result : undefined
    const meta = result.meta()
    const post = result instanceof FailedTransactionMetadata ? [] : result.postAccounts()
    const returned = meta.returnData()
    const returnedData = returned.data()
    const postOf = (key: Address) => post.find((account) => account.address === key)
    const jsonOf = (account: EncodedAccount | undefined): SimulatedAccountJson | null =>
      account === undefined || account.lamports === 0n
        ? null
        : simulatedAccountJson(account.programAddress, account.lamports, account.data, account.executable)
    const value: SimulationValue = {
      err: failed === undefined ? null : transactionErrorJson(failed.err()),
      logs: meta.logs(),
      accounts: addresses === undefined ? null : addresses.map((key) => jsonOf(postOf(key))),
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData:
        returnedData.length === 0
          ? null
          : { programId: address(toBase58(returned.programId())), data: [toBase64(returnedData), "base64"] },
      innerInstructions: config.innerInstructions === true ? innerInstructionsJson(meta) : null,
      replacementBlockhash: replace ? { blockhash, lastValidBlockHeight: world.slot + 150n } : null,
      fee: BigInt(5000 * compiled.header.numSignerAccounts),
      loadedAddresses: { readonly: [], writable: [] },
      preBalances,
      postBalances:
        failed !== undefined ? null : keys.map((key) => postOf(key)?.lamports ?? world.svm.getBalance(key) ?? 0n),
      preTokenBalances: null,
      postTokenBalances: null
    }
    return { context, value }
  }

  const methods: Record<string, (params: Params) => unknown> = {
    simulateTransaction,
    getHealth: () => "ok",
    getVersion: () => ({ "solana-core": "2.2.7", "feature-set": 3294202862 }),
    getSlot: (params) => contextSlot(configOf(params, 0)),
    getBlockHeight: (params) => contextSlot(configOf(params, 0)),
    getEpochInfo: (params) => {
      const slot = contextSlot(configOf(params, 0))
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: slot / 432_000n,
        slotIndex: slot % 432_000n,
        slotsInEpoch: 432_000n,
        transactionCount: BigInt(world.transactions.length)
      }
    },
    getLatestBlockhash: (params) =>
      withContext(configOf(params, 0), {
        blockhash: world.svm.latestBlockhash(),
        lastValidBlockHeight: world.slot + 150n
      }),
    getMinimumBalanceForRentExemption: (params) =>
      world.svm.minimumBalanceForRentExemption(BigInt(typeof params[0] === "number" ? params[0] : 0)),
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
      return withContext(
        config,
        addresses.map((_, i) => {
          const account = accountAt(addressParam(addresses, i))
          return account === undefined ? null : encodeAccount(account, config)
        })
      )
    },
    getProgramAccounts: (params) => {
      const config = configOf(params, 1)
      const found = accountsOf(addressParam(params, 0))
        .filter((account) => matches(account, config.filters))
        .map((account) => ({ pubkey: account.address, account: encodeAccount(account, config) }))
      if (config.withContext === true) return withContext(config, found)
      contextSlot(config)
      return found
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
        .sort((a, b) => (a.amount === b.amount ? a.address.localeCompare(b.address) : a.amount > b.amount ? -1 : 1))
        .slice(0, 20)
      return withContext(
        config,
        largest.map((holder) => ({ address: holder.address, ...tokenAmount(holder.amount, decimals) }))
      )
    },
    getTokenAccountsByOwner: (params) => {
      const owner = addressParam(params, 0)
      const filter = configOf(params, 1)
      const config = configOf(params, 2)
      const mint = typeof filter.mint === "string" ? address(filter.mint) : undefined
      const programs =
        mint !== undefined
          ? [accountAt(mint)?.programAddress ?? TOKEN_PROGRAM_ADDRESS]
          : typeof filter.programId === "string"
            ? [address(filter.programId)]
            : (() => {
                throw new RpcError(-32602, "Invalid params: expected mint or programId")
              })()
      const found = programs
        .flatMap((program) => tokenAccounts(program, "owner", owner))
        .filter((account) => mint === undefined || toBase58(account.data.slice(0, 32)) === mint)
      return withContext(
        config,
        found.map((account) => ({ pubkey: account.address, account: encodeAccount(account, config) }))
      )
    },
    getSignaturesForAddress: (params) => {
      const config = configOf(params, 1)
      contextSlot(config)
      const limit = typeof config.limit === "number" ? config.limit : 1000
      if (limit < 1 || limit > 1000) throw new RpcError(-32602, "Invalid limit; max 1000")
      let history = world.signaturesFor(addressParam(params, 0))
      if (typeof config.before === "string") {
        const at = history.findIndex((tx) => tx.signature === config.before)
        history = at === -1 ? [] : history.slice(at + 1)
      }
      if (typeof config.until === "string") {
        const at = history.findIndex((tx) => tx.signature === config.until)
        if (at !== -1) history = history.slice(0, at)
      }
      return history.slice(0, limit).map((tx) => ({
        signature: tx.signature,
        slot: tx.slot,
        err: null,
        memo: null,
        blockTime: tx.blockTime,
        confirmationStatus: "finalized"
      }))
    },
    getTransaction: (params) => {
      const signature = params[0]
      if (typeof signature !== "string") throw new RpcError(-32602, "Invalid params: expected a signature")
      const tx = world.transaction(signature)
      return tx === undefined ? null : transactionJson(tx, configOf(params, 1))
    }
  }
  return { methods, stop: stopIndex }
}
