import { Effect } from "effect"
import type { Address } from "../../domain/Address.ts"
import type { ServiceUnavailable } from "../../domain/Errors.ts"
import { type LaunchOutcome, outcomeOf } from "../Deployer/History.ts"
import { LaunchesRepo } from "../Deployer/LaunchesRepo.ts"
import { assessToken } from "../../engines/TokenScoring/index.ts"
import { assessWallet } from "../../engines/WalletScoring/index.ts"
import { SCREENING_DISCLAIMER, type WalletRiskPacket } from "./Schemas.ts"
import { WalletRepo } from "./WalletRepo.ts"

type Packet = typeof WalletRiskPacket.Type

// The deployer-history outcome rule decides rugs (also from drained liquidity); "unknown" is no finding.
const outcomeAsReported = (outcome: LaunchOutcome) => (outcome === "unknown" ? null : outcome)

// Gathers a wallet's cached evidence (labels, exposures, counterparties' labels and launch records,
// its own launches) and runs the pure wallet model over it.
export class WalletRisk extends Effect.Service<WalletRisk>()("WalletRisk", {
  dependencies: [WalletRepo.Default, LaunchesRepo.Default],
  effect: Effect.gen(function* () {
    const store = yield* WalletRepo
    const launchHistory = yield* LaunchesRepo
    return {
      packet: (wallet: Address, now: number): Effect.Effect<Packet, ServiceUnavailable> =>
        Effect.gen(function* () {
          const exposures = yield* store.exposuresOf(wallet)
          const counterparties = [...new Set(exposures.map((exposure) => exposure.counterpartyAddress))]
          const [labels, records, launches] = yield* Effect.all([
            store.labelsOf([wallet, ...counterparties]),
            launchHistory.deployerRecords(counterparties),
            launchHistory.launchesOf(wallet)
          ])
          const counterpartyLabels = new Map<string, Array<(typeof labels)[number]>>()
          for (const label of labels) {
            if (label.address === wallet) continue
            counterpartyLabels.set(label.address, [...(counterpartyLabels.get(label.address) ?? []), label])
          }
          const deployedTokens = launches.map((launch) => ({
            address: launch.mint,
            name: launch.latest.name,
            symbol: launch.latest.symbol,
            safetyScore: assessToken(launch.latest).safetyScore,
            isHoneypot: launch.latest.trading.isHoneypot,
            lpLocked: launch.latest.liquidity.lpLocked,
            scannedAt: launch.latest.scannedAt,
            outcome: outcomeAsReported(outcomeOf(launch, now).outcome)
          }))
          const assessment = assessWallet({
            walletAddress: wallet,
            labels: labels.filter((label) => label.address === wallet),
            exposures,
            counterpartyLabels,
            counterpartyLaunches: records,
            deployedTokens
          })
          return {
            walletAddress: wallet,
            riskScore: assessment.riskScore,
            riskLevel: assessment.riskLevel,
            confidence: assessment.confidence,
            summary: assessment.summary,
            recommendedAction: assessment.recommendedAction,
            signals: assessment.signals,
            exposures: exposures.map((exposure) => ({
              counterparty_address: exposure.counterpartyAddress,
              counterparty_label: exposure.counterpartyLabel,
              category: exposure.category,
              direction: exposure.direction,
              exposure_type: exposure.exposureType,
              hop_distance: exposure.hopDistance,
              exposure_amount_usd: exposure.exposureAmountUsd,
              exposure_pct: exposure.exposurePct,
              tx_count: exposure.txCount,
              last_seen_at: exposure.lastSeenAt
            })),
            deployedTokens: deployedTokens.map(({ outcome: _outcome, ...token }) => token),
            sources: assessment.sources,
            modelVersion: assessment.modelVersion,
            generatedAt: new Date(now).toISOString(),
            disclaimer: SCREENING_DISCLAIMER
          }
        })
    }
  })
}) {}
