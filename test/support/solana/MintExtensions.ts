import type { Address, KeyPairSigner } from "@solana/kit"
import { AccountState, type ExtensionArgs } from "@solana-program/token-2022"

// What a test asks of a Token-2022 mint, in the few words a test needs, and its translation into
// the official extension arguments. The program refuses some combinations at InitializeMint
// (interest-bearing with scaled UI amount, confidential transfers with fees or NonTransferable).

export interface MintExtensions {
  /** `next` is set after initialisation with SetTransferFee, so older and newer fees differ (newer takes effect two epochs on). */
  readonly transferFee?: {
    readonly configAuthority: KeyPairSigner | Address
    readonly withdrawAuthority: Address
    readonly basisPoints: number
    readonly maximumFee: bigint
    readonly next?: { readonly basisPoints: number; readonly maximumFee: bigint }
  }
  readonly permanentDelegate?: Address
  readonly transferHook?: { readonly programId: Address; readonly authority: Address }
  /** "frozen": the builder thaws every account it mints to (the freeze authority signs). */
  readonly defaultAccountState?: "initialized" | "frozen"
  readonly nonTransferable?: boolean
  readonly mintCloseAuthority?: Address
  /** Defaults, when tokenMetadata is set: the mint authority, pointing at the mint itself. */
  readonly metadataPointer?: { readonly authority: Address | null; readonly address: Address | null }
  /** Stored in the mint; `updateAuthority` defaults to the mint authority, null leaves it unset. */
  readonly tokenMetadata?: {
    readonly name: string
    readonly symbol: string
    readonly uri: string
    readonly additional?: ReadonlyArray<readonly [string, string]>
    readonly updateAuthority?: Address | null
  }
  /** Created unpaused; world.pause(mint, authority) pauses it, after the holders are built since mintTo then fails. */
  readonly pausable?: { readonly authority: Address }
  readonly confidentialTransfer?: {
    readonly authority: Address | null
    readonly autoApproveNewAccounts: boolean
    readonly auditorElgamalPubkey: Address | null
  }
  readonly interestBearing?: { readonly rateAuthority: Address; readonly rate: number }
  readonly scaledUiAmount?: { readonly authority: Address; readonly multiplier: number }
}

/** The official extension arguments for what a test asked for, in the order the program initialises them. */
export const extensionArgs = (
  mint: Address,
  mintAuthority: Address,
  extensions: MintExtensions
): Array<ExtensionArgs> => {
  const args: Array<ExtensionArgs> = []
  const fee = extensions.transferFee
  if (fee !== undefined) {
    const initial = { epoch: 0n, transferFeeBasisPoints: fee.basisPoints, maximumFee: fee.maximumFee }
    args.push({
      __kind: "TransferFeeConfig",
      transferFeeConfigAuthority:
        typeof fee.configAuthority === "string" ? fee.configAuthority : fee.configAuthority.address,
      withdrawWithheldAuthority: fee.withdrawAuthority,
      withheldAmount: 0n,
      olderTransferFee: initial,
      newerTransferFee: initial
    })
  }
  if (extensions.permanentDelegate !== undefined)
    args.push({ __kind: "PermanentDelegate", delegate: extensions.permanentDelegate })
  if (extensions.transferHook !== undefined) args.push({ __kind: "TransferHook", ...extensions.transferHook })
  if (extensions.defaultAccountState !== undefined) {
    args.push({
      __kind: "DefaultAccountState",
      state: extensions.defaultAccountState === "frozen" ? AccountState.Frozen : AccountState.Initialized
    })
  }
  if (extensions.nonTransferable === true) args.push({ __kind: "NonTransferable" })
  if (extensions.mintCloseAuthority !== undefined)
    args.push({ __kind: "MintCloseAuthority", closeAuthority: extensions.mintCloseAuthority })
  const pointer =
    extensions.metadataPointer ??
    (extensions.tokenMetadata === undefined ? undefined : { authority: mintAuthority, address: mint })
  if (pointer !== undefined)
    args.push({ __kind: "MetadataPointer", authority: pointer.authority, metadataAddress: pointer.address })
  if (extensions.pausable !== undefined)
    args.push({ __kind: "PausableConfig", authority: extensions.pausable.authority, paused: false })
  if (extensions.confidentialTransfer !== undefined)
    args.push({ __kind: "ConfidentialTransferMint", ...extensions.confidentialTransfer })
  if (extensions.interestBearing !== undefined) {
    const { rateAuthority, rate } = extensions.interestBearing
    args.push({
      __kind: "InterestBearingConfig",
      rateAuthority,
      initializationTimestamp: 0n,
      preUpdateAverageRate: rate,
      lastUpdateTimestamp: 0n,
      currentRate: rate
    })
  }
  if (extensions.scaledUiAmount !== undefined) {
    const { authority, multiplier } = extensions.scaledUiAmount
    args.push({
      __kind: "ScaledUiAmountConfig",
      authority,
      multiplier,
      newMultiplierEffectiveTimestamp: 0n,
      newMultiplier: multiplier
    })
  }
  const metadata = extensions.tokenMetadata
  if (metadata !== undefined) {
    args.push({
      __kind: "TokenMetadata",
      updateAuthority: mintAuthority,
      mint,
      name: metadata.name,
      symbol: metadata.symbol,
      uri: metadata.uri,
      additionalMetadata: new Map(metadata.additional ?? [])
    })
  }
  return args
}
