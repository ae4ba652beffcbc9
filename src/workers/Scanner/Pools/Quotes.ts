import type { Address } from "@solana/kit"

// Quote assets pools are valued against. Mints from @raydium-io/raydium-sdk-v2 src/common/pubKey.ts
// (USDCMint, USDTMint) and the native mint of @solana-program/token (wrapped SOL).

export const WSOL = "So11111111111111111111111111111111111111112" as Address
export const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as Address
export const USDT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB" as Address

export interface QuoteMint {
  readonly mint: Address
  readonly symbol: string
  readonly decimals: number
  /** Valued at 1 USD (stablecoins); SOL is valued at the reference pool's price. */
  readonly usdPegged: boolean
}

export const QUOTE_MINTS: ReadonlyArray<QuoteMint> = [
  { mint: WSOL, symbol: "SOL", decimals: 9, usdPegged: false },
  { mint: USDC, symbol: "USDC", decimals: 6, usdPegged: true },
  { mint: USDT, symbol: "USDT", decimals: 6, usdPegged: true }
]
