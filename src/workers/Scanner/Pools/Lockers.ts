import type { Address } from "@solana/kit"
import { addressAt, anchorAccountDiscriminator, startsWith, u64At } from "./Bytes.ts"

// Lock state accounts of the LP lockers (Programs.ts VENUES, kind "locker"): when the tokens they hold
// unlock. Each layout with where it was read.

export interface LockState {
  /** Nobody can ever withdraw the principal (Raydium Burn & Earn). */
  readonly permanent: boolean
  /** When the whole amount is withdrawable; null when permanent. */
  readonly unlockAt: Date | null
  /** The locked token (the LP mint for LP locks). */
  readonly mint: Address | null
  /** Still locked, in raw units. */
  readonly amount: bigint | null
  /** Jupiter Lock and Streamflow: the cliff, when the first part unlocks. */
  readonly cliffAt?: Date | null
  /** Raydium LP lock: the CPMM pool whose LP it locks. */
  readonly pool?: Address | null
  /** Streamflow: cancelled before its end (the tokens went back). */
  readonly cancelled?: boolean
}

const dateOf = (seconds: bigint): Date | null =>
  // JavaScript dates end at 8.64e15 ms (8.64e12 s): the "forever" values lockers use become null.
  seconds <= 0n || seconds > 8_640_000_000_000n ? null : new Date(Number(seconds) * 1000)

// Jupiter Lock (locker program LocpQgucEQ…): @meteora-ag/met-lock-sdk 1.0.1 dist/index.js (src/idl/idl.json,
// program "locker" 0.5.0) VestingEscrow, bytemuck repr C, 296 bytes: discriminator 8, recipient 8,
// token_mint 40, creator 72, base 104, 4 flag bytes 136, padding 140, cliff_time 144, frequency 152,
// cliff_unlock_amount 160, amount_per_period 168, number_of_period 176, total_claimed_amount 184,
// vesting_start_time 192, cancelled_at 200, ... Everything unlocks at cliff_time + frequency ×
// number_of_period (the program's get_max_unlocked_amount reaches the total there).
const VESTING_ESCROW_SIZE = 296
const VESTING_ESCROW_DISCRIMINATOR = anchorAccountDiscriminator("VestingEscrow")
const jupiterLock = (data: Uint8Array): LockState | undefined => {
  if (data.length !== VESTING_ESCROW_SIZE || !startsWith(data, VESTING_ESCROW_DISCRIMINATOR)) return undefined
  const cliff = u64At(data, 144)
  const frequency = u64At(data, 152)
  const periods = u64At(data, 176)
  const total = u64At(data, 160) + u64At(data, 168) * periods
  const claimed = u64At(data, 184)
  return {
    permanent: false,
    unlockAt: dateOf(cliff + frequency * periods),
    cliffAt: dateOf(cliff),
    mint: addressAt(data, 40),
    amount: total > claimed ? total - claimed : 0n
  }
}

// Streamflow (strmRqUCo…): @streamflow/stream 12.5.0 dist/esm/solana/index.js streamLayout (from
// solana/layout.ts), a fixed 1104-byte account (METADATA_ACC_SIZE), not Anchor: magic 0, version 8,
// created_at 9, withdrawn_amount 17, canceled_at 25, end_time 33, last_withdrawn_at 41, sender 49,
// sender_tokens 81, recipient 113, recipient_tokens 145, mint 177, escrow_tokens 209, ..., start_time 409,
// net_amount_deposited 417, period 425, amount_per_period 433, cliff 441, cliff_amount 449. The SDK's
// Contract.end is end_time (clamped at 8.64e12 s); the first tokens release at the cliff (start_time when
// there is none).
const STREAMFLOW_SIZE = 1104
const streamflow = (data: Uint8Array): LockState | undefined => {
  if (data.length !== STREAMFLOW_SIZE) return undefined
  const cancelledAt = u64At(data, 25)
  const deposited = u64At(data, 417)
  const withdrawn = u64At(data, 17)
  const end = u64At(data, 33)
  const cliff = u64At(data, 441)
  return {
    permanent: false,
    unlockAt: cancelledAt > 0n ? dateOf(cancelledAt) : dateOf(end),
    cliffAt: cancelledAt > 0n ? dateOf(cancelledAt) : dateOf(cliff > 0n ? cliff : u64At(data, 409)),
    mint: addressAt(data, 177),
    amount: cancelledAt > 0n ? 0n : deposited > withdrawn ? deposited - withdrawn : 0n,
    cancelled: cancelledAt > 0n
  }
}

// Raydium LP lock, Burn & Earn (LockrWmn6…): raydium-io/raydium-cpi (crate raydium-locking-cpi)
// states LockedCpLiquidityState, LEN 8 + 4×8 + 16 + 8 + 32×4 + 8×8 = 256: discriminator 8,
// locked_lp_amount 8, claimed_lp_amount 16, unclaimed_lp_amount 24, last_lp 32, last_k u128 40,
// recent_epoch 56, pool_id 64, fee_nft_mint 96, locked_owner 128, locked_lp_mint 160, padding 192.
// The program has no unlock instruction: the LP is locked for good and the fee NFT only collects fees.
// (The Raydium SDK ships no layout for this account.)
const LOCKED_CP_SIZE = 256
const LOCKED_CP_DISCRIMINATOR = anchorAccountDiscriminator("LockedCpLiquidityState")
const raydiumLock = (data: Uint8Array): LockState | undefined => {
  if (data.length !== LOCKED_CP_SIZE || !startsWith(data, LOCKED_CP_DISCRIMINATOR)) return undefined
  return {
    permanent: true,
    unlockAt: null,
    mint: addressAt(data, 160),
    amount: u64At(data, 8),
    pool: addressAt(data, 64)
  }
}

const DECODERS: Readonly<Record<string, (data: Uint8Array) => LockState | undefined>> = {
  "jupiter-lock": jupiterLock,
  streamflow: streamflow,
  "raydium-lp-lock": raydiumLock
}

/** The lock a locker's state account records; undefined when the data is not that locker's lock account. */
export const decodeLock = (venueLabel: string, data: Uint8Array): LockState | undefined => DECODERS[venueLabel]?.(data)
