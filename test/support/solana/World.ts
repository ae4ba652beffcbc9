import {
  AccountRole,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  flattenInstructionPlan,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getProgramDerivedAddress,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  getU64Encoder,
  getUtf8Encoder,
  isSingleInstructionPlan,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners
} from "@solana/kit"
import {
  AuthorityType,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getBurnInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getCreateMintInstructionPlan,
  getFreezeAccountInstruction,
  getInitializeTokenMetadataInstruction,
  getMintSize,
  getMintToInstruction,
  getPauseInstruction,
  getSetAuthorityInstruction,
  getSetTransferFeeInstruction,
  getThawAccountInstruction,
  getUpdateTokenMetadataFieldInstruction,
  getUpdateTokenMetadataUpdateAuthorityInstruction,
  tokenMetadataField
} from "@solana-program/token-2022"
import { getMintEncoder, getSyncNativeInstruction } from "@solana-program/token"
import { getTransferSolInstruction } from "@solana-program/system"
import { FailedTransactionMetadata, LiteSVM } from "litesvm"
import { type MetaplexMetadata, encodeMetaplexMetadata } from "../../../src/workers/Scanner/Metaplex.ts"
import {
  INCINERATOR,
  METAPLEX_METADATA_PROGRAM,
  VENUES,
  type Venue,
  authorityOf,
  metaplexMetadataAddress
} from "../../../src/workers/Scanner/Programs.ts"
import { type MintExtensions, extensionArgs } from "./MintExtensions.ts"
import { VENUE_LAYOUTS, anchorDiscriminator } from "./VenueLayouts.ts"

// A small Solana world on LiteSVM for the scanner's tests. Mints, holders, burns and authority
// changes go through real token-program transactions; what has no program on npm (Metaplex
// metadata, pools, lockers) is written with setAccount in its real layout. LiteSVM keeps no
// address-to-signature index, so every transaction sent here is recorded for the RPC server.

type TokenProgramName = "token" | "token-2022"

export interface MintOptions {
  readonly program?: TokenProgramName
  readonly decimals?: number
  /** Fee payer of the mint's first transaction. Default: a fresh funded signer. */
  readonly deployer?: KeyPairSigner
  /** Default: the deployer. */
  readonly mintAuthority?: KeyPairSigner
  /** Default: none. */
  readonly freezeAuthority?: KeyPairSigner | null
  readonly extensions?: MintExtensions
  /** The mint's own key pair (a launchpad's create instruction names it as a signer). Default: fresh. */
  readonly keypair?: KeyPairSigner
}

export interface BuiltMint {
  readonly address: Address
  readonly programName: TokenProgramName
  readonly program: Address
  readonly decimals: number
  readonly deployer: KeyPairSigner
  /** Null once revoked; world.revoke updates these. */
  mintAuthority: KeyPairSigner | null
  freezeAuthority: KeyPairSigner | null
  readonly extensions: MintExtensions
  /** The creating transaction: the first that touches the mint. */
  readonly signature: Signature
}

export interface HolderSpec {
  /** A signer can burn later; an address cannot. Default: a fresh signer. */
  readonly owner?: KeyPairSigner | Address
  readonly amount: bigint
}

export interface Holder {
  readonly owner: Address
  readonly signer: KeyPairSigner | undefined
  /** The owner's associated token account. */
  readonly account: Address
  readonly amount: bigint
}

export interface BuiltVenue {
  readonly venue: Venue
  /** The pool / lock state account written with setAccount (owner: the venue's program). */
  readonly state: Address
  /** Token owner of the vault: the program-wide authority where the venue has one, else `state`. */
  readonly vaultOwner: Address
  readonly vault: Address
  readonly amount: bigint
}

export interface BuiltMetaplex {
  readonly address: Address
  readonly metadata: MetaplexMetadata
}

export interface RecordedTransaction {
  readonly signature: Signature
  readonly signatures: ReadonlyArray<Signature>
  readonly slot: bigint
  readonly blockTime: number
  readonly feePayer: Address
  readonly accountKeys: ReadonlyArray<Address>
  readonly header: {
    readonly numRequiredSignatures: number
    readonly numReadonlySignedAccounts: number
    readonly numReadonlyUnsignedAccounts: number
  }
  /** `data` in base58, as getTransaction's "json" encoding sends it. */
  readonly instructions: ReadonlyArray<{
    readonly programIdIndex: number
    readonly accounts: ReadonlyArray<number>
    readonly data: string
  }>
  readonly recentBlockhash: string
  readonly fee: number
  /** Lamports of each account key before and after, as getTransaction's meta reports them. */
  readonly preBalances: ReadonlyArray<bigint>
  readonly postBalances: ReadonlyArray<bigint>
  /** The signed transaction in base64, for getTransaction's "base64" encoding. */
  readonly wire: string
  readonly logs: ReadonlyArray<string>
  readonly computeUnitsConsumed: bigint
  /** getTransaction's meta.innerInstructions ("json" encoding); empty for what LiteSVM ran. */
  readonly innerInstructions?: ReadonlyArray<InnerInstructions>
  /** Token accounts among the keys before and after, in getTransaction's meta shape (amounts as strings). */
  readonly preTokenBalances: ReadonlyArray<TokenBalance>
  readonly postTokenBalances: ReadonlyArray<TokenBalance>
}

export interface TokenBalance {
  readonly accountIndex: number
  readonly mint: Address
  readonly owner: Address
  readonly programId: Address
  readonly uiTokenAmount: {
    readonly amount: string
    readonly decimals: number
    readonly uiAmount: number | null
    readonly uiAmountString: string
  }
}

/** One top-level instruction's inner instructions, as getTransaction's meta lists them. */
interface InnerInstructions {
  readonly index: number
  readonly instructions: ReadonlyArray<{
    readonly programIdIndex: number
    readonly accounts: ReadonlyArray<number>
    readonly data: string
    readonly stackHeight: number
  }>
}

/** What the PubSub server tells its subscribers about. */
export type WorldChange =
  | { readonly kind: "transaction"; readonly transaction: RecordedTransaction }
  | { readonly kind: "slot"; readonly slot: bigint; readonly parent: bigint }
  | { readonly kind: "account"; readonly address: Address }

/** What a program LiteSVM lacks would have logged and emitted, for World.record. */
export interface Emulated {
  readonly logs: ReadonlyArray<string>
  /** Inner instructions of each top-level instruction, by the instruction's index; accounts by address. */
  readonly inner?: ReadonlyArray<{
    readonly index: number
    readonly instructions: ReadonlyArray<{
      readonly program: Address
      readonly accounts: ReadonlyArray<Address>
      readonly data: Uint8Array
    }>
  }>
  readonly computeUnitsConsumed?: bigint
  /**
   * The program's effects on accounts, applied between the transaction's pre and post balances (so its
   * preTokenBalances / postTokenBalances show them); without it the caller writes them before recording.
   */
  readonly effects?: () => void | Promise<void>
}

/** Lamports per signature, as the default fee structure charges. */
const FEE_PER_SIGNATURE = 5000
const START_SLOT = 300_000_000n
/** The owner of every sysvar account. */
const SYSVAR_OWNER = "Sysvar1111111111111111111111111111111111111" as Address
const START_TIME = 1_750_000_000

const SOL = 1_000_000_000n
const base58 = getBase58Decoder()
/** The native mint of SPL Token (@solana-program/token NATIVE_MINT): wrapped SOL. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112" as Address

export class World {
  readonly svm = new LiteSVM()
  /** Oldest first. */
  readonly transactions: Array<RecordedTransaction> = []
  /** The same transactions by signature, and by each of their account keys (oldest first): a node's indexes. */
  readonly #bySignature = new Map<string, RecordedTransaction>()
  readonly #byAddress = new Map<string, Array<RecordedTransaction>>()
  /** Bumped by every change this builder makes, so readers can cache what they derive from accounts. */
  version = 0
  readonly #listeners = new Set<(change: WorldChange) => void>()
  #slot = START_SLOT
  #time = START_TIME
  /** While set, sends stay in the current slot (several transactions of one block, a launch bundle). */
  #holdSlot = false
  /** Associated token accounts derived so far, by owner, mint and token program (a PDA costs hashing). */
  readonly #associated = new Map<string, Address>()
  /** Keys that are never token accounts (programs, sysvars): #tokenBalances does not read them again. */
  readonly #notTokenAccounts = new Set<string>()

  constructor() {
    this.#setClock()
  }

  get slot(): bigint {
    return this.#slot
  }
  get blockTime(): number {
    return this.#time
  }

  /** Moves the clock on without a transaction (a test of stale slots, say). */
  advance(slots: bigint, seconds = Number(slots) * 0.4): void {
    const parent = this.#slot
    this.#slot += slots
    this.#time += Math.ceil(seconds)
    this.#setClock()
    this.#emit({ kind: "slot", slot: this.#slot, parent })
  }

  /** Calls `listener` after every transaction, slot and written account; answers the unsubscribe. */
  onChange(listener: (change: WorldChange) => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }

  #emit(change: WorldChange): void {
    for (const listener of this.#listeners) listener(change)
  }

  #setClock(): void {
    this.svm.warpToSlot(this.#slot)
    const clock = this.svm.getClock()
    clock.unixTimestamp = BigInt(this.#time)
    this.svm.setClock(clock)
  }

  async signer(sol = 100n): Promise<KeyPairSigner> {
    const signer = await generateKeyPairSigner()
    this.svm.airdrop(signer.address, lamports(sol * SOL))
    return signer
  }

  /** Sends one transaction at a fresh slot and time, and records it. */
  async send(feePayer: KeyPairSigner, instructions: ReadonlyArray<Instruction>): Promise<RecordedTransaction> {
    return this.#commit(feePayer, instructions, undefined)
  }

  /**
   * Records a transaction of a program LiteSVM cannot run (pump, PumpSwap: no binary on npm) as the
   * network would report it: signed for real, at a fresh slot, with the logs and inner instructions the
   * program emits. It changes no account: the caller writes the program's effects first, with real
   * token-program transactions and setAccount, so a reader woken by this transaction finds them.
   */
  async record(
    feePayer: KeyPairSigner,
    instructions: ReadonlyArray<Instruction>,
    emulated: Emulated
  ): Promise<RecordedTransaction> {
    return this.#commit(feePayer, instructions, emulated)
  }

  async #commit(
    feePayer: KeyPairSigner,
    instructions: ReadonlyArray<Instruction>,
    emulated: Emulated | undefined
  ): Promise<RecordedTransaction> {
    if (!this.#holdSlot) this.advance(2n, 1)
    this.svm.expireBlockhash()
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(feePayer, m),
      (m) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
      (m) => appendTransactionMessageInstructions(instructions, m)
    )
    const transaction = await signTransactionMessageWithSigners(message)
    const compiled = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes)
    if (compiled.version !== 0) throw new Error(`unexpected message version ${String(compiled.version)}`)
    const balances = () => compiled.staticAccounts.map((key) => this.svm.getBalance(key) ?? 0n)
    const preBalances = balances()
    const preTokenBalances = this.#tokenBalances(compiled.staticAccounts)
    const result = emulated === undefined ? this.svm.sendTransaction(transaction) : undefined
    await emulated?.effects?.()
    if (result instanceof FailedTransactionMetadata) {
      throw new Error(`transaction failed: ${String(result.err())}\n${result.meta().logs().join("\n")}`)
    }
    const keyIndex = (key: Address): number => {
      const index = compiled.staticAccounts.indexOf(key)
      if (index === -1) throw new Error(`inner instruction names ${key}, which is not among the transaction's keys`)
      return index
    }
    const signatures = Object.values(transaction.signatures).flatMap((bytes) =>
      bytes === null ? [] : [base58.decode(bytes) as Signature]
    )
    const recorded: RecordedTransaction = {
      signature: getSignatureFromTransaction(transaction),
      signatures,
      slot: this.#slot,
      blockTime: this.#time,
      feePayer: feePayer.address,
      accountKeys: compiled.staticAccounts,
      header: {
        numRequiredSignatures: compiled.header.numSignerAccounts,
        numReadonlySignedAccounts: compiled.header.numReadonlySignerAccounts,
        numReadonlyUnsignedAccounts: compiled.header.numReadonlyNonSignerAccounts
      },
      instructions: compiled.instructions.map((instruction) => ({
        programIdIndex: instruction.programAddressIndex,
        accounts: instruction.accountIndices ?? [],
        data: base58.decode(instruction.data ?? new Uint8Array())
      })),
      recentBlockhash: compiled.lifetimeToken,
      fee: FEE_PER_SIGNATURE * signatures.length,
      preBalances,
      postBalances: balances(),
      wire: getBase64EncodedWireTransaction(transaction),
      logs: result?.logs() ?? emulated?.logs ?? [],
      computeUnitsConsumed: result?.computeUnitsConsumed() ?? emulated?.computeUnitsConsumed ?? 0n,
      innerInstructions: (emulated?.inner ?? []).map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map((entry) => ({
          programIdIndex: keyIndex(entry.program),
          accounts: entry.accounts.map(keyIndex),
          data: base58.decode(entry.data),
          stackHeight: 2
        }))
      })),
      preTokenBalances,
      postTokenBalances: this.#tokenBalances(compiled.staticAccounts)
    }
    this.transactions.push(recorded)
    this.#bySignature.set(recorded.signature, recorded)
    for (const key of recorded.accountKeys) {
      const list = this.#byAddress.get(key)
      if (list === undefined) this.#byAddress.set(key, [recorded])
      else list.push(recorded)
    }
    this.version++
    this.#emit({ kind: "transaction", transaction: recorded })
    return recorded
  }

  /** The owner's associated token account of `mint` under `tokenProgram` (derived once). */
  async associatedAccount(owner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
    const key = `${owner}:${mint}:${tokenProgram}`
    const known = this.#associated.get(key)
    if (known !== undefined) return known
    const [account] = await findAssociatedTokenPda({ owner, mint, tokenProgram })
    this.#associated.set(key, account)
    return account
  }

  /** The token accounts among `keys` (SPL Token or Token-2022, 165 bytes or more), as getTransaction's meta lists them. */
  #tokenBalances(keys: ReadonlyArray<Address>): ReadonlyArray<TokenBalance> {
    const balances: Array<TokenBalance> = []
    keys.forEach((key, accountIndex) => {
      if (this.#notTokenAccounts.has(key)) return
      const account = this.svm.getAccount(key)
      if (!account.exists) return
      const program = account.programAddress
      // A program or a sysvar never becomes a token account.
      if (account.executable || program === SYSVAR_OWNER) {
        this.#notTokenAccounts.add(key)
        return
      }
      if (program !== TOKEN_PROGRAM_ADDRESS && program !== TOKEN_2022_PROGRAM_ADDRESS) return
      if (account.data.length < 165) return
      const mint = getAddressDecoder().decode(account.data.subarray(0, 32))
      const owner = getAddressDecoder().decode(account.data.subarray(32, 64))
      const amount = new DataView(account.data.buffer, account.data.byteOffset + 64, 8).getBigUint64(0, true)
      const mintAccount = this.svm.getAccount(mint)
      const decimals = mintAccount.exists ? (mintAccount.data[44] ?? 0) : 0
      const ui = Number(amount) / 10 ** decimals
      balances.push({
        accountIndex,
        mint,
        owner,
        programId: program,
        uiTokenAmount: { amount: amount.toString(), decimals, uiAmount: ui, uiAmountString: String(ui) }
      })
    })
    return balances
  }

  /** Runs `build` with every send in one slot: the transactions of one block (the creation slot, a bundle). */
  async inOneSlot<A>(build: () => Promise<A>): Promise<A> {
    this.advance(2n, 1)
    this.#holdSlot = true
    try {
      return await build()
    } finally {
      this.#holdSlot = false
    }
  }

  /** A system-program transfer of `sol` SOL (whole or fractional lamports/1e9) from `from` to `to`, recorded. */
  async transferSol(from: KeyPairSigner, to: Address, lamportsAmount: bigint): Promise<RecordedTransaction> {
    return this.send(from, [getTransferSolInstruction({ source: from, destination: to, amount: lamportsAmount })])
  }

  /** Transactions that name this address among their account keys, newest first. */
  signaturesFor(address: Address): ReadonlyArray<RecordedTransaction> {
    return [...(this.#byAddress.get(address) ?? [])].reverse()
  }

  transaction(signature: string): RecordedTransaction | undefined {
    return this.#bySignature.get(signature)
  }

  async mint(options: MintOptions = {}): Promise<BuiltMint> {
    const programName = options.program ?? "token"
    const program = programName === "token" ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS
    const extensions = options.extensions ?? {}
    if (programName === "token" && Object.keys(extensions).length > 0)
      throw new Error("SPL Token mints have no extensions")
    const deployer = options.deployer ?? (await this.signer())
    const mintAuthority = options.mintAuthority ?? deployer
    const freezeAuthority = options.freezeAuthority ?? null
    const newMint = options.keypair ?? (await generateKeyPairSigner())
    const args = extensionArgs(newMint.address, mintAuthority.address, extensions)
    const allocated = args.filter((arg) => arg.__kind !== "TokenMetadata")
    const plan = await getCreateMintInstructionPlan(
      { getMinimumBalance: async (space) => lamports(this.svm.minimumBalanceForRentExemption(BigInt(space))) },
      {
        payer: deployer,
        newMint,
        decimals: options.decimals ?? 6,
        mintAuthority,
        freezeAuthority: freezeAuthority?.address ?? null,
        ...(allocated.length === 0 ? {} : { extensions: allocated }),
        // Funded for the metadata and its additional fields too, which the program reallocs into.
        mintAccountLamports: this.svm.minimumBalanceForRentExemption(
          BigInt(programName === "token" ? getMintSize() : getMintSize(args))
        )
      },
      { tokenProgram: program }
    )
    const created = await this.send(
      deployer,
      flattenInstructionPlan(plan).flatMap((step) => (isSingleInstructionPlan(step) ? [step.instruction] : []))
    )
    const built: BuiltMint = {
      address: newMint.address,
      programName,
      program,
      decimals: options.decimals ?? 6,
      deployer,
      mintAuthority,
      freezeAuthority,
      extensions,
      signature: created.signature
    }

    const metadata = extensions.tokenMetadata
    if (metadata !== undefined) {
      // Its own transaction: name, symbol and uri may not fit beside the initialisation.
      await this.send(deployer, [
        getInitializeTokenMetadataInstruction({
          metadata: newMint.address,
          updateAuthority: mintAuthority.address,
          mint: newMint.address,
          mintAuthority,
          name: metadata.name,
          symbol: metadata.symbol,
          uri: metadata.uri
        })
      ])
      for (const [key, value] of metadata.additional ?? []) {
        await this.send(deployer, [
          getUpdateTokenMetadataFieldInstruction({
            metadata: newMint.address,
            updateAuthority: mintAuthority,
            field: tokenMetadataField("Key", [key]),
            value
          })
        ])
      }
      if (metadata.updateAuthority !== undefined && metadata.updateAuthority !== mintAuthority.address) {
        await this.send(deployer, [
          getUpdateTokenMetadataUpdateAuthorityInstruction({
            metadata: newMint.address,
            updateAuthority: mintAuthority,
            newUpdateAuthority: metadata.updateAuthority
          })
        ])
      }
    }
    const fee = extensions.transferFee
    if (fee?.next !== undefined) {
      if (typeof fee.configAuthority === "string")
        throw new Error("transferFee.next needs the config authority as a signer")
      await this.send(deployer, [
        getSetTransferFeeInstruction({
          mint: newMint.address,
          transferFeeConfigAuthority: fee.configAuthority,
          transferFeeBasisPoints: fee.next.basisPoints,
          maximumFee: fee.next.maximumFee
        })
      ])
    }
    return built
  }

  /** Creates each owner's associated token account and mints to it, one transaction per holder. */
  async holders(mint: BuiltMint, specs: ReadonlyArray<HolderSpec>): Promise<ReadonlyArray<Holder>> {
    const holders: Array<Holder> = []
    for (const spec of specs) {
      const signer =
        spec.owner === undefined
          ? await generateKeyPairSigner()
          : typeof spec.owner === "string"
            ? undefined
            : spec.owner
      const owner = signer?.address ?? (spec.owner as Address)
      const account = await this.#mintToOwner(mint, owner, spec.amount)
      holders.push({ owner, signer, account, amount: spec.amount })
    }
    return holders
  }

  async #mintToOwner(mint: BuiltMint, owner: Address, amount: bigint): Promise<Address> {
    if (mint.mintAuthority === null) throw new Error("the mint authority was revoked: build holders before revoking")
    const account = await this.associatedAccount(owner, mint.address, mint.program)
    const thaw = mint.extensions.defaultAccountState === "frozen"
    if (thaw && mint.freezeAuthority === null)
      throw new Error("a frozen default state needs a freeze authority to thaw holders")
    const config = { programAddress: mint.program }
    await this.send(mint.deployer, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: mint.deployer,
        ata: account,
        owner,
        mint: mint.address,
        tokenProgram: mint.program
      }),
      ...(thaw && mint.freezeAuthority !== null
        ? [getThawAccountInstruction({ account, mint: mint.address, owner: mint.freezeAuthority }, config)]
        : []),
      getMintToInstruction({ mint: mint.address, token: account, mintAuthority: mint.mintAuthority, amount }, config)
    ])
    return account
  }

  /** Tokens held by the incinerator's associated token account (burned by sending them there). */
  async incinerate(mint: BuiltMint, amount: bigint): Promise<Holder> {
    const account = await this.#mintToOwner(mint, INCINERATOR, amount)
    return { owner: INCINERATOR, signer: undefined, account, amount }
  }

  async burn(mint: BuiltMint, holder: Holder, amount: bigint): Promise<RecordedTransaction> {
    if (holder.signer === undefined) throw new Error("this holder's owner cannot sign")
    // The holder pays for its own burn, so it needs lamports (an airdrop, which is not recorded).
    if ((this.svm.getBalance(holder.owner) ?? 0n) === 0n) this.svm.airdrop(holder.owner, lamports(SOL))
    return this.send(holder.signer, [
      getBurnInstruction(
        { account: holder.account, mint: mint.address, authority: holder.signer, amount },
        { programAddress: mint.program }
      )
    ])
  }

  /** SetAuthority to None. */
  async revoke(mint: BuiltMint, which: "mint" | "freeze"): Promise<RecordedTransaction> {
    const current = which === "mint" ? mint.mintAuthority : mint.freezeAuthority
    if (current === null) throw new Error(`the ${which} authority is already absent`)
    const sent = await this.send(mint.deployer, [
      getSetAuthorityInstruction(
        {
          owned: mint.address,
          owner: current,
          authorityType: which === "mint" ? AuthorityType.MintTokens : AuthorityType.FreezeAccount,
          newAuthority: null
        },
        { programAddress: mint.program }
      )
    ])
    if (which === "mint") mint.mintAuthority = null
    else mint.freezeAuthority = null
    return sent
  }

  async freeze(mint: BuiltMint, account: Address): Promise<RecordedTransaction> {
    if (mint.freezeAuthority === null) throw new Error("no freeze authority")
    return this.send(mint.deployer, [
      getFreezeAccountInstruction(
        { account, mint: mint.address, owner: mint.freezeAuthority },
        { programAddress: mint.program }
      )
    ])
  }

  async pause(mint: BuiltMint, authority: KeyPairSigner): Promise<RecordedTransaction> {
    return this.send(mint.deployer, [getPauseInstruction({ mint: mint.address, authority })])
  }

  /**
   * Tokens in a venue: its state account (real size and discriminator, the mint at its offset) and a
   * vault token account owned by the venue's program-wide authority or, without one, by the state
   * account. The vault is the owner's associated token account, created and filled by real instructions.
   */
  async venue(mint: BuiltMint, label: string, amount: bigint): Promise<BuiltVenue> {
    const venue = VENUES.find((candidate) => candidate.label === label)
    const layout = VENUE_LAYOUTS[label]
    if (venue === undefined || layout === undefined) throw new Error(`unknown venue ${label}`)
    const state =
      layout.mintSeed === undefined
        ? (await generateKeyPairSigner()).address
        : (
            await getProgramDerivedAddress({
              programAddress: venue.program,
              seeds: [getUtf8Encoder().encode(layout.mintSeed), getAddressEncoder().encode(mint.address)]
            })
          )[0]
    const data = new Uint8Array(layout.size)
    if (layout.anchor) data.set(anchorDiscriminator(layout.account), 0)
    if (layout.mintOffset !== undefined) data.set(getAddressEncoder().encode(mint.address), layout.mintOffset)
    this.setAccount(state, venue.program, data)
    const vaultOwner = (await authorityOf(venue)) ?? state
    const vault = await this.#mintToOwner(mint, vaultOwner, amount)
    return { venue, state, vaultOwner, vault, amount }
  }

  /**
   * An SPL Token mint at a fixed address (a quote mint: USDC, USDT...), written with setAccount as an
   * initialised mint whose mint authority is a signer this world holds, so `fund` and `holders` mint
   * to it by real instructions. Wrapped SOL is written as the native mint (no authority); `fund` wraps
   * lamports into it. The mint's `signature` is its first transaction here (the deployer's account).
   */
  async quoteMint(at: Address, decimals: number): Promise<BuiltMint> {
    const native = at === NATIVE_MINT
    const deployer = await this.signer(native ? 10_000n : 100n)
    this.setAccount(
      at,
      TOKEN_PROGRAM_ADDRESS,
      Uint8Array.from(
        getMintEncoder().encode({
          mintAuthority: native ? null : deployer.address,
          supply: 0n,
          decimals,
          isInitialized: true,
          freezeAuthority: null
        })
      )
    )
    const [account] = await findAssociatedTokenPda({
      owner: deployer.address,
      mint: at,
      tokenProgram: TOKEN_PROGRAM_ADDRESS
    })
    const created = await this.send(deployer, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: deployer,
        ata: account,
        owner: deployer.address,
        mint: at,
        tokenProgram: TOKEN_PROGRAM_ADDRESS
      })
    ])
    return {
      address: at,
      programName: "token",
      program: TOKEN_PROGRAM_ADDRESS,
      decimals,
      deployer,
      mintAuthority: native ? null : deployer,
      freezeAuthority: null,
      extensions: {},
      signature: created.signature
    }
  }

  /**
   * The owner's associated token account of `mint`, created if absent, with `amount` more in it: minted
   * (mintTo) or, for wrapped SOL, a lamport transfer and SyncNative. One recorded transaction.
   */
  async fund(mint: BuiltMint, owner: Address, amount: bigint): Promise<Address> {
    if (mint.address !== NATIVE_MINT) return this.#mintToOwner(mint, owner, amount)
    const account = await this.associatedAccount(owner, mint.address, TOKEN_PROGRAM_ADDRESS)
    const transfer: Instruction = {
      programAddress: "11111111111111111111111111111111" as Address,
      accounts: [
        { address: mint.deployer.address, role: AccountRole.WRITABLE_SIGNER },
        { address: account, role: AccountRole.WRITABLE }
      ],
      // System program Transfer: u32 index 2, then the lamports.
      data: Uint8Array.from([2, 0, 0, 0, ...getU64Encoder().encode(amount)])
    }
    await this.send(mint.deployer, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: mint.deployer,
        ata: account,
        owner,
        mint: mint.address,
        tokenProgram: TOKEN_PROGRAM_ADDRESS
      }),
      transfer,
      getSyncNativeInstruction({ account })
    ])
    return account
  }

  /** The Metaplex metadata account at the mint's PDA, as the program would have written it. */
  async metaplex(
    mint: BuiltMint,
    fields: Pick<MetaplexMetadata, "name" | "symbol" | "uri"> & Partial<MetaplexMetadata>
  ): Promise<BuiltMetaplex> {
    const metadata: MetaplexMetadata = {
      updateAuthority: mint.deployer.address,
      mint: mint.address,
      sellerFeeBasisPoints: 0,
      creators: null,
      primarySaleHappened: false,
      isMutable: true,
      editionNonce: null,
      tokenStandard: 2,
      collection: null,
      uses: null,
      ...fields
    }
    const address = await metaplexMetadataAddress(mint.address)
    this.setAccount(address, METAPLEX_METADATA_PROGRAM, encodeMetaplexMetadata(metadata))
    return { address, metadata }
  }

  /** Writes an account with rent-exempt lamports, bypassing the runtime. */
  setAccount(address: Address, owner: Address, data: Uint8Array, executable = false): void {
    this.version++
    this.svm.setAccount({
      address,
      programAddress: owner,
      data,
      executable,
      lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      space: BigInt(data.length)
    })
    this.#emit({ kind: "account", address })
  }
}

export const makeWorld = (): World => new World()
