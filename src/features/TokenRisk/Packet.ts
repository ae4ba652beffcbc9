import { Schema } from "effect"
import type { Meta } from "../Accounts/Meta.ts"
import { clusterRiskOf } from "../../domain/EvidenceInsiders.ts"
import { epochMillisOf, type ScanEvidence } from "../../domain/ScanEvidence.ts"
import { TokenRiskPacket } from "./Schemas.ts"
import { assessTokenOnce, confidenceOf } from "../../engines/TokenScoring/index.ts"
import { observe } from "../../engines/TokenScoring/observed.ts"

const roundPct = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100)

export const TOKEN_RISK_SOURCES = ["svc_token_scans", "svc_scoring_engine"] as const

const ageSecondsOf = (evidence: ScanEvidence, now: number): number =>
  Math.max(0, Math.floor((now - epochMillisOf(evidence.scannedAt)) / 1000))

const packetAt = (evidence: ScanEvidence, ageSeconds: number): TokenRiskPacket => {
  const assessment = assessTokenOnce(evidence)
  const { market, trading, liquidity } = evidence
  const observed = observe(evidence)
  return {
    address: evidence.mint,
    name: evidence.name,
    symbol: evidence.symbol,
    safetyScore: assessment.safetyScore,
    riskScore: assessment.riskScore,
    riskLevel: assessment.riskLevel,
    recommendedAction: assessment.recommendedAction,
    summary: assessment.summary,
    modelVersion: assessment.modelVersion,
    confidence: confidenceOf(assessment, evidence, ageSeconds),
    facets: assessment.facets,
    hardCaps: assessment.hardCaps,
    // The engine's risks, then each insider cluster the scan observed, named (funder, wallets, share).
    risks: [...assessment.risks, ...(evidence.holders.clusters ?? []).map(clusterRiskOf)],
    market: {
      liquidityUsd: liquidity.liquidityUsd ?? market.liquidityUsd,
      marketCap: market.marketCap,
      volume24h: market.volume24h,
      priceChange5m: market.priceChange5m,
      priceChange1h: market.priceChange1h,
      priceChange6h: market.priceChange6h,
      priceChange24h: market.priceChange24h,
      buyCount24h: market.buyCount24h,
      sellCount24h: market.sellCount24h,
      tradeCount24h: market.tradeCount24h
    },
    evidence: {
      isHoneypot: trading.isHoneypot,
      lpLocked: liquidity.lpLocked,
      lpLockPercentage: liquidity.lpLockPercentage,
      buyTax: observed.buy.totalPct,
      sellTax: observed.sell.totalPct,
      transferFeePct: observed.sell.transferFeePct,
      top10HolderPct: roundPct(observed.top10Pct),
      excludedHolderPct: observed.excludedPct,
      issuerVerified: evidence.verified,
      listed: evidence.listed ?? [],
      deployerAddress: evidence.deployer.address,
      scanSource: evidence.source,
      scannedAt: evidence.scannedAt
    },
    scoreBreakdown: assessment.scoreBreakdown,
    sources: TOKEN_RISK_SOURCES
  }
}

// A cached scan is the same evidence object on every read, and its packet is the same but for
// `confidence` (its age factor): so the packet is built once per evidence object, and kept as its JSON
// cut around the confidence, which each answer splices in. The JSON is that of the packet as the contract
// schema encodes it, so the bytes are those HttpApi would write. Kept in a WeakMap on the evidence: it goes
// when the scan cache lets the scan go.
interface Kept {
  readonly packet: TokenRiskPacket
  /** The encoded packet's JSON up to and including `"confidence":`, and from after its value; undefined: not cut. */
  readonly json: { readonly head: string; readonly tail: string } | undefined
}

const kept = new WeakMap<ScanEvidence, Kept>()
const encodePacket = Schema.encodeSync(TokenRiskPacket)
const CONFIDENCE_KEY = ',"confidence":'

const keptOf = (evidence: ScanEvidence): Kept => {
  let found = kept.get(evidence)
  if (found === undefined) {
    const packet = packetAt(evidence, 0)
    const json = JSON.stringify(encodePacket(packet))
    // A key in quotes followed by a colon only occurs as structure: inside a JSON string a quote is escaped.
    const at = json.indexOf(CONFIDENCE_KEY)
    const value = JSON.stringify(packet.confidence)
    const cuttable =
      at !== -1 && json.indexOf(CONFIDENCE_KEY, at + 1) === -1 && json.startsWith(value, at + CONFIDENCE_KEY.length)
    found = {
      packet,
      json: cuttable
        ? {
            head: json.slice(0, at + CONFIDENCE_KEY.length),
            tail: json.slice(at + CONFIDENCE_KEY.length + value.length)
          }
        : undefined
    }
    kept.set(evidence, found)
  }
  return found
}

/** The full token risk packet of a mint's latest scan, as seen at `now`. */
export const tokenRiskPacketOf = (evidence: ScanEvidence, now: number): TokenRiskPacket => {
  const { packet } = keptOf(evidence)
  return { ...packet, confidence: confidenceOf(assessTokenOnce(evidence), evidence, ageSecondsOf(evidence, now)) }
}

/** The body of a token risk answer: JSON.stringify of TokenRiskResponse as encoded, from the kept fragments. */
export const tokenRiskBodyOf = (evidence: ScanEvidence, now: number, meta: Meta): string => {
  const { json, packet } = keptOf(evidence)
  const confidence = confidenceOf(assessTokenOnce(evidence), evidence, ageSecondsOf(evidence, now))
  const data =
    json === undefined
      ? JSON.stringify(encodePacket({ ...packet, confidence }))
      : json.head + JSON.stringify(confidence) + json.tail
  return `{"data":${data},"meta":${metaJsonOf(meta)}}`
}

// In the Meta schema's field order, as its encoding writes them.
const metaJsonOf = (meta: Meta): string =>
  JSON.stringify({
    requestId: meta.requestId,
    scope: meta.scope,
    quota: { limit: meta.quota.limit, used: meta.quota.used, remaining: meta.quota.remaining },
    generatedAt: meta.generatedAt,
    contractVersion: meta.contractVersion,
    costUnits: meta.costUnits,
    cacheMode: meta.cacheMode
  })
