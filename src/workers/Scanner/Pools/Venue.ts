import { raydiumLaunchLab } from "./LaunchLab.ts"
import { orcaWhirlpool } from "./Orca.ts"
import { meteoraDammV1, meteoraDammV2, meteoraDbc, meteoraDlmm } from "./Meteora.ts"
import { pumpFun, pumpSwap } from "./Pump.ts"
import { raydiumAmmV4, raydiumClmm, raydiumCpmm } from "./Raydium.ts"
import type { PoolProgram } from "./Types.ts"

export type { PoolProgram, PoolState } from "./Types.ts"

/** Every pool program a scan reads, in the order of Programs.ts VENUES. */
export const POOL_PROGRAMS: ReadonlyArray<PoolProgram> = [
  raydiumAmmV4,
  raydiumCpmm,
  raydiumClmm,
  orcaWhirlpool,
  meteoraDlmm,
  meteoraDammV1,
  meteoraDammV2,
  meteoraDbc,
  raydiumLaunchLab,
  pumpFun,
  pumpSwap
]
