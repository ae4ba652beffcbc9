import { venueProgram } from "../Programs.ts"
import { addressAt, priceFromSqrtQ64, startsWith, u128At } from "./Bytes.ts"
import type { PoolProgram } from "./Types.ts"

/** Where a concentrated-liquidity pool account keeps what a scan reads, as its program's layout says. */
export interface SqrtPriceLayout {
  readonly venue: string
  /** The account's size (the getProgramAccounts dataSize filter). */
  readonly size: number
  readonly discriminator: Uint8Array
  /** Offsets of mint A and mint B. */
  readonly mints: readonly [number, number]
  /** Offsets of vault A and vault B (token accounts whose balances are the reserves). */
  readonly vaults: readonly [number, number]
  /** Offset of the Q64.64 square root of the price of A in B (u128). */
  readonly sqrtPrice: number
  /** Package and file the layout was read from. */
  readonly source: string
}

/**
 * A concentrated-liquidity pool read at fixed offsets: reserves from its two vaults, price from its sqrt
 * price, and no LP mint (liquidity is held as positions), so its LP status is not applicable.
 */
export const sqrtPricePool = (layout: SqrtPriceLayout): PoolProgram => ({
  venue: layout.venue,
  program: venueProgram(layout.venue),
  shape: "concentrated",
  dataSize: layout.size,
  mintOffsets: layout.mints,
  source: layout.source,
  decode: (address, data) => {
    if (data.length !== layout.size || !startsWith(data, layout.discriminator)) return undefined
    return {
      address,
      venue: layout.venue,
      shape: "concentrated",
      mintA: addressAt(data, layout.mints[0]),
      mintB: addressAt(data, layout.mints[1]),
      vaultA: addressAt(data, layout.vaults[0]),
      vaultB: addressAt(data, layout.vaults[1]),
      storedReserves: null,
      priceBPerA: priceFromSqrtQ64(u128At(data, layout.sqrtPrice)),
      lpMint: null,
      lpSupplyTracked: null,
      curve: null,
      related: []
    }
  }
})
