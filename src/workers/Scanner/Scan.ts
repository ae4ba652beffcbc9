import type { Address } from "@solana/kit"
import type { ScanEvidenceV2 } from "../../domain/EvidenceV2.ts"
import { venueIndexOf } from "./Programs.ts"
import type { ScanRpc, ScanRpcCounter } from "./Rpc.ts"
import { readFirst, mintOf, tokenFactsOf } from "./stages/Mint.ts"
import { extensionFactsOf } from "./stages/Extensions.ts"
import { copycatOf, metadataAccountOf, metadataOf } from "./stages/Metadata.ts"
import {
  classifierOf,
  holderAccountsOf,
  holderRowsOf,
  holdersOf,
  readHolderAccounts,
  readLargest,
  readOwners,
  tokenLockOf,
  withheldOf
} from "./stages/Holders.ts"
import { createdAtOf, deployerOf, readFirstTransaction, readHistory } from "./stages/Deployer.ts"
import {
  canonicalAccountsOf,
  depthOf,
  discoveredOf,
  foundOf,
  poolsReadOf,
  readDiscovery,
  readPoolAccounts
} from "./stages/Pools.ts"
import { liquidityFactsOf, lpPoolsOf, readLpAccounts, readLpLargest, readLpOwners } from "./stages/Lp.ts"
import { quoteAccountsOf, quoteOwnersOf, readSellPath, sellFactsOf, sellProbeOf } from "./stages/Sell.ts"
import { swapTargetOf } from "./stages/SwapTarget.ts"
import { hookProgramOf, readHookProgram } from "./stages/HookProgram.ts"
import {
  positionFactsOf,
  positionLockAddressesOf,
  positionPoolsOf,
  readNftAccounts,
  readPositionLocks,
  readPositionNfts,
  readPositions,
  withPositions
} from "./stages/Positions.ts"
import { Gaps, ours, reasonOf, type ScanContext, type ScanSettings } from "./stages/Context.ts"
import {
  buyersNowOf,
  deployerNowOf,
  insiderAccountsOf,
  readFundersHop2,
  readInsidersRound3,
  readInsidersRound4,
  readInsidersRound5,
  readSignaturesHop2,
  rememberFunders,
  secondHopOf,
  startInsiders,
  walletsOf
} from "./stages/Insiders.ts"
import { insidersOf } from "./stages/InsidersEvidence.ts"

export { ScanFailed, type ScanSettings } from "./stages/Context.ts"

// One scan of one mint over standard JSON-RPC: a pipeline of stages (src/workers/Scanner/stages/), each reading
// what it needs in the scan's rounds. The reads of one round start in the same turn of the event loop, so
// the transport sends them as one JSON-RPC batch: at most six round trips for a token with 20 holders (a
// round with nothing to read sends nothing; test/workers/Scanner/roundTrips.test.ts pins the rounds).
//   1. mint and metadata: the mint, its Metaplex PDA ‖ pools: the reference and canonical pools (one call;
//      its slot pins every later read). The Token-2022 extensions come out of the mint account.
//   2. holders: the largest accounts ‖ deployer: the signatures, paged back ‖ pools: discovery ‖ hook program:
//      a TransferHook's program and its ProgramData (who can upgrade it)
//   3. holders: those accounts ‖ pools: vaults, LP mints and related accounts ‖ deployer: the first
//      transaction ‖ insiders: the launch window's transactions
//   4. holders: their owners, with the sell path's quote accounts and the insiders' token accounts (the
//      deployer's, the launch buyers') in the same call ‖ lp: the LP mints' largest accounts ‖ positions: each
//      concentrated pool's positions ‖ insiders: the followed wallets' signatures
//   5. sell path: the transfer and the swap, simulated ‖ lp: the LP holders' accounts ‖ positions: the
//      holders of the largest positions' NFTs ‖ insiders: the wallets' oldest transactions
//   6. lp: the LP holders' owners (a locker's state gives the unlock time) ‖ positions: the NFT accounts ‖
//      insiders: the second hop's signatures (then 7: its oldest transactions), only for funders not in the book
// A stage is a module with its reads (one function per round it reads in, taking the ScanContext and prior
// stages' outputs) and pure functions from their answers to its facts. A new stage adds its reads to the
// rounds below (a round of its own costs a round trip) and its facts to the evidence. Every read that
// fails or answers inconsistently (wrong owner, short data, a slot older than the pinned one) leaves its
// facts not_observed and marks the scan partial (Gaps); nothing is ever filled with a safe default.

const settle = <A>(read: Promise<A>): Promise<PromiseSettledResult<A>> =>
  read.then(
    (value) => ({ status: "fulfilled", value }),
    (reason: unknown) => ({ status: "rejected", reason })
  )

/** Round 1 and what it gives: the mint (ScanFailed when it cannot be read), its extensions and metadata, and the pools known by address. */
const firstRound = async (rpc: ScanRpc, mint: Address, settings: ScanSettings, gaps: Gaps) => {
  const [metadataAddress, canonical] = await Promise.all([metadataAccountOf(mint), canonicalAccountsOf(mint)])
  const first = await readFirst(rpc, mint, [metadataAddress, settings.referencePool, ...canonical])
  const ctx: ScanContext = { rpc, mint, settings, slot: first.slot, gaps }
  const token = mintOf(mint, first.infos)
  const extensions = extensionFactsOf(token.program, token.extensions, token.tlv, ctx.slot)
  const metadata = metadataOf(mint, token.extensions, metadataAddress, first.infos, gaps)
  return { ctx, token, extensions, metadata, found: foundOf(mint, canonical, first.infos, settings) }
}

type First = Awaited<ReturnType<typeof firstRound>>

/** Round 2: the largest holder accounts, the deployer's signatures and pool discovery. */
const secondRound = async ({ ctx, found, extensions }: First) => {
  const [largest, history, discovery, hookRead] = await Promise.all([
    settle(readLargest(ctx)),
    settle(readHistory(ctx)),
    readDiscovery(ctx),
    readHookProgram(ctx, extensions.hookProgram)
  ])
  const { poolStates, unread, discoveryMissing } = discoveredOf(ctx, found, discovery)
  const hookProgram = hookProgramOf(ctx, extensions.hookProgram, hookRead)
  return { largest, history, poolStates, unread, discoveryMissing, hookProgram }
}

type Second = Awaited<ReturnType<typeof secondRound>>

/** Round 3: the holders' accounts, the pools' accounts, the first transaction and the launch window, and what they give: the rows, pools, depth and swap target. */
const thirdRound = async ({ ctx, token, found }: First, { largest, poolStates, unread, history }: Second) => {
  const accounts = holderAccountsOf(largest)
  const [holderRead, poolRead, firstTransaction, insiderRound3] = await Promise.all([
    settle(readHolderAccounts(ctx, accounts)),
    settle(readPoolAccounts(ctx, poolStates, found.reference)),
    settle(readFirstTransaction(ctx, history)),
    readInsidersRound3(ctx, history)
  ])
  const { top, rows } = holderRowsOf(ctx, token.info.owner, accounts, largest, holderRead)
  const pools = poolsReadOf(ctx, found, poolStates, poolRead)
  const depth = depthOf(ctx, token.decimals, pools)
  const lpPools = lpPoolsOf(ctx, pools, depth)
  const positionPools = positionPoolsOf(ctx, pools, depth)
  const target = swapTargetOf(
    pools.pools,
    ctx.mint,
    token.info.owner,
    token.supplyRaw,
    pools.infos,
    depth,
    pools.missing,
    unread
  )
  return { top, rows, pools, lpPools, positionPools, target, firstTransaction, insiderRound3 }
}

type Third = Awaited<ReturnType<typeof thirdRound>>

/** Round 4: the holders' owners, the LP mints' largest accounts, the insiders' signatures; then the classified holders. */
const fourthRound = async ({ ctx, token }: First, { history, poolStates }: Second, third: Third) => {
  const { settings, gaps } = ctx
  const { top, rows, lpPools, positionPools, target, firstTransaction, insiderRound3 } = third
  const venues = await venueIndexOf()
  const vaults = new Set(poolStates.flatMap((state) => [state.vaultA, state.vaultB]).filter((at) => at !== null))
  const quoteOwners = quoteOwnersOf(rows, vaults, venues)
  const deployer = deployerOf(ctx, history, firstTransaction)
  const deployerAddress: Address | undefined =
    deployer.status === "observed" ? (deployer.value.address as string as Address) : undefined
  const insiderRun = await startInsiders(
    settings,
    insiderRound3,
    { mint: ctx.mint, program: token.info.owner },
    { rows, vaults, venues, first: firstTransaction, deployer: deployerAddress }
  )
  const [ownerRead, lpLargest, insiderRound4, positionsRead] = await Promise.all([
    settle(readOwners(ctx, rows, [...quoteAccountsOf(target, quoteOwners), ...insiderAccountsOf(insiderRun)])),
    readLpLargest(ctx, lpPools),
    readInsidersRound4(ctx, insiderRun),
    readPositions(ctx, positionPools)
  ])
  if (ownerRead.status === "rejected") gaps.note(reasonOf("holder owners", ownerRead.reason))
  const classify = classifierOf(venues, deployerAddress, settings)
  const ownerInfos = ownerRead.status === "fulfilled" ? ownerRead.value : new Map()
  const classified = rows.map((row) => {
    const classification = classify(row.owner, ownerInfos)
    return { ...row, ...classification, ...tokenLockOf(classification, row.owner, ownerInfos, venues, ctx.mint) }
  })
  const holders = holdersOf(top, classified, token.supplyRaw, deployerAddress)
  return {
    venues,
    vaults,
    quoteOwners,
    insiderRun,
    ownerRead,
    firstTransaction,
    lpLargest,
    insiderRound4,
    positionsRead,
    deployer,
    deployerAddress,
    classify,
    ownerInfos,
    classified,
    holders
  }
}

type Fourth = Awaited<ReturnType<typeof fourthRound>>

/** What the sell path simulates: the probe holder (one that is not a pool, locker or burn address) and the swap target. */
const sellInputOf = ({ token, extensions }: First, { rows, target }: Third, fourth: Fourth) => {
  const { classified, vaults, ownerInfos, quoteOwners, ownerRead } = fourth
  const probe = sellProbeOf(
    classified.filter((row) => !vaults.has(row.tokenAccount)),
    ownerInfos
  )
  const noProbe =
    rows.length === 0
      ? "no holder account read"
      : "no holder that is not a pool, locker or burn address, or none whose wallet can pay the simulated fee"
  return {
    mint: token,
    transferFee: extensions.transferFee,
    hookProgram: extensions.hookProgram,
    target,
    probe,
    noProbe,
    quoteOwners,
    ownerRead
  }
}

/** Rounds 5 and 6: the sell path simulated, the LP holders and their owners, the insiders' funders (two hops). */
const lastRounds = async (first: First, third: Third, fourth: Fourth) => {
  const { ctx } = first
  const { insiderRun, classified, deployerAddress, lpLargest, insiderRound4, positionsRead } = fourth
  const sellInput = sellInputOf(first, third, fourth)
  const lockAddresses = await positionLockAddressesOf(third.positionPools, positionsRead)
  const [[transfer, swap], lpAccounts, insiderRound5, positionNfts, positionLocks] = await Promise.all([
    readSellPath(ctx, sellInput),
    readLpAccounts(ctx, lpLargest),
    readInsidersRound5(ctx, insiderRun, insiderRound4, classified, fourth.firstTransaction),
    readPositionNfts(ctx, positionsRead),
    readPositionLocks(ctx, lockAddresses)
  ])
  const secondHop = await secondHopOf(insiderRun, insiderRound5, classified, deployerAddress, ctx.settings)
  const [lpOwners, hop2Signatures, nftAccounts] = await Promise.all([
    readLpOwners(ctx, lpAccounts),
    readSignaturesHop2(ctx, insiderRun, secondHop.unknown),
    readNftAccounts(ctx, positionNfts)
  ])
  const hop2 = await readFundersHop2(ctx, insiderRun, hop2Signatures, secondHop.cached)
  await rememberFunders(insiderRun, insiderRound5, hop2)
  const positions = positionFactsOf(ctx, {
    pools: third.positionPools,
    read: positionsRead,
    nfts: positionNfts,
    nftAccounts,
    locks: positionLocks,
    classify: fourth.classify
  })
  return { transfer, swap, lpAccounts, insiderRound5, lpOwners, hop2, positions }
}

type Last = Awaited<ReturnType<typeof lastRounds>>

/** The insiders block, when the stage is on. */
const insiderFactsOf = ({ ctx, token }: First, fourth: Fourth, { insiderRound5, hop2 }: Last) => {
  const { insiderRun, classified, deployerAddress, vaults, ownerRead } = fourth
  const { mint, settings } = ctx
  return insiderRun === undefined
    ? undefined
    : insidersOf({
        mint,
        supplyRaw: token.supplyRaw,
        deployer: deployerAddress,
        classified,
        vaults,
        wallets: walletsOf(classified, insiderRun.candidates),
        hop1: insiderRound5,
        hop2,
        budget: insiderRun.budget,
        launch: insiderRun.launch,
        figures: insiderRun.figures,
        deployerNow: deployerNowOf(insiderRun, classified, deployerAddress, ownerRead, mint),
        buyersNow: buyersNowOf(insiderRun, ownerRead, mint),
        settings,
        insiders: insiderRun.insiders,
        classify: insiderRun.classify
      })
}

/** The liquidity block: the pools' depth and the LP holders. */
const liquidityBlockOf = (
  { ctx, token }: First,
  { discoveryMissing }: Second,
  { pools, lpPools }: Third,
  { lpLargest, holders, venues, classify }: Fourth,
  { lpAccounts, lpOwners }: Last
) =>
  liquidityFactsOf(
    ctx,
    {
      decimals: token.decimals,
      supplyRaw: token.supplyRaw,
      pools,
      lpPools,
      lpLargest,
      lpAccounts,
      lpOwners,
      discoveryMissing,
      withheld: withheldOf(holders)
    },
    venues,
    classify
  )

/** Scans one mint: the evidence, full or partial; ScanFailed when there is nothing to record. */
export const scanMint = async (
  rpc: ScanRpc,
  counter: ScanRpcCounter,
  mint: Address,
  settings: ScanSettings,
  /** Community lists that include the mint (imported by the operator; read from the database by the worker). */
  listed: ScanEvidenceV2["listed"] = []
): Promise<ScanEvidenceV2> => {
  const started = performance.now()
  const gaps = new Gaps()
  const first = await firstRound(rpc, mint, settings, gaps)
  const { ctx, token, extensions, metadata } = first
  const second = await secondRound(first)
  const third = await thirdRound(first, second)
  const fourth = await fourthRound(first, second, third)
  const last = await lastRounds(first, third, fourth)
  const { deployer, holders } = fourth
  const insiders = insiderFactsOf(first, fourth, last)
  const sell = sellFactsOf(last.transfer, last.swap)
  const liquidity = withPositions(
    liquidityBlockOf(first, second, third, fourth, last),
    last.positions,
    insiders?.clusters,
    settings.maxLpPools
  )

  return {
    version: 2,
    mint: ours(mint),
    scannedAt: new Date().toISOString(),
    scanDepth: gaps.reasons.length === 0 ? "full" : "partial",
    source: "risk-api-scanner",
    provenance: {
      scanner: `risk-api-scanner/${settings.scannerVersion}`,
      slot: Number(ctx.slot),
      rpcCalls: counter.calls(),
      rpcRoundTrips: counter.roundTrips(),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      partial: gaps.reasons.slice(0, 50).map((reason) => reason.slice(0, 500))
    },
    token: tokenFactsOf(token, createdAtOf(deployer)),
    extensions: extensions.extensions,
    transferFee: extensions.transferFee,
    transferHookProgram: second.hookProgram,
    tradingTax: sell.tradingTax,
    honeypot: sell.honeypot,
    sellPath: sell.sellPath,
    metadata,
    copycatOf: copycatOf(mint, metadata),
    holders,
    deployer,
    deployerRecord: { priorLaunches: null, priorRugs: null, priorHoneypots: null, flagged: null },
    ...(insiders === undefined ? {} : { insiders }),
    liquidity,
    market: {
      status: "not_observed",
      reason:
        "24 h volume, trades and price changes are not readable from plain RPC; an operator can merge a market feed"
    },
    aml: { status: "not_observed", reason: "holder screening is not read by the scanner" },
    issuerVerified: settings.issuers.get(mint) ?? null,
    listed,
    outcome: null
  }
}
