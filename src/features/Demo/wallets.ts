import { base58 } from "@scure/base"
import type { ScanEvidenceEncoded } from "../../domain/ScanEvidence.ts"
import type { WalletExposure, WalletLabel } from "../../domain/WalletEvidence.ts"
import type { DemoDataset } from "./generate.ts"

// Demo wallets across every risk level, tied to the demo tokens: a sanctioned-style address, the serial
// rugger who deployed the demo's rugged token (with three more bad launches), wallets one and two hops
// from the sanctioned one, a clean trader, and a wallet with no evidence at all.

export interface DemoWallets {
  readonly lines: ReadonlyArray<typeof WalletLabel.Encoded | typeof WalletExposure.Encoded>
  readonly scans: ReadonlyArray<ScanEvidenceEncoded>
  readonly showcase: Readonly<Record<string, string>>
}

const HOUR_MS = 3_600_000

/** A stable demo address for a name (sha256 of it: 32 bytes, valid base58 address). */
const addressOf = (name: string): string =>
  base58.encode(new Uint8Array(new Bun.CryptoHasher("sha256").update(`risk-api-demo-wallet:${name}`).digest()))

const ago = (now: Date, hours: number) => new Date(now.getTime() - hours * HOUR_MS).toISOString()

const launch = (
  now: Date,
  deployer: string,
  name: string,
  symbol: string,
  state: { readonly hoursAgo: number; readonly liquidityUsd: number; readonly honeypot: boolean }
): ScanEvidenceEncoded => ({
  mint: addressOf(`launch:${symbol}`),
  scannedAt: ago(now, state.hoursAgo),
  name,
  symbol,
  createdAt: ago(now, 24 * 20),
  mintAuthority: null,
  freezeAuthority: null,
  trading: { isHoneypot: state.honeypot, buyTax: 0, sellTax: state.honeypot ? 100 : 0 },
  liquidity: {
    liquidityUsd: state.liquidityUsd,
    lpLocked: false,
    lpLockPercentage: 0,
    lpLockExpiresAt: null,
    poolCount: 1
  },
  deployer: { address: deployer, priorLaunches: 4, priorRugs: 2, priorHoneypots: 1, flagged: true },
  market: { liquidityUsd: state.liquidityUsd, volume24h: state.liquidityUsd * 2, marketCap: state.liquidityUsd * 8 }
})

export const generateDemoWallets = (options: { readonly now: Date; readonly dataset: DemoDataset }): DemoWallets => {
  const { dataset, now } = options
  const serialToken = dataset.scans.find((scan) => scan.mint === dataset.showcase.serial_rugger_token)
  const serialRugger = serialToken?.deployer?.address ?? addressOf("serial-rugger")
  const sanctioned = addressOf("sanctioned")
  const mixer = addressOf("mixer")
  const exchange = addressOf("exchange")
  const oneHop = addressOf("one-hop")
  const twoHop = addressOf("two-hop")
  const clean = addressOf("clean")
  const noEvidence = addressOf("no-evidence")

  const label = (
    address: string,
    fields: Omit<typeof WalletLabel.Encoded, "type" | "address" | "observedAt">,
    hours: number
  ) => ({ type: "label" as const, address, observedAt: ago(now, hours), ...fields })
  const exposure = (
    wallet: string,
    counterparty: string,
    fields: Pick<
      typeof WalletExposure.Encoded,
      "category" | "hopDistance" | "exposureAmountUsd" | "exposurePct" | "txCount"
    > &
      Partial<typeof WalletExposure.Encoded>
  ) => ({
    type: "exposure" as const,
    walletAddress: wallet,
    counterpartyAddress: counterparty,
    direction: "outbound" as const,
    exposureType: "transfer",
    lastSeenAt: ago(now, 30),
    ...fields
  })

  const lines = [
    label(
      sanctioned,
      {
        label: "sanctioned",
        category: "sanctions",
        severity: "critical",
        source: "ofac_list",
        detail: "Listed address (demo data)."
      },
      24 * 90
    ),
    label(
      mixer,
      {
        label: "mixer",
        category: "mixer",
        severity: "high",
        source: "manual_review",
        detail: "Coin mixing service (demo data)."
      },
      24 * 30
    ),
    label(
      exchange,
      {
        label: "exchange",
        category: "service",
        severity: "info",
        source: "manual_review",
        detail: "Centralised exchange hot wallet."
      },
      24 * 60
    ),
    label(
      serialRugger,
      {
        label: "rugger",
        category: "deployer",
        severity: "high",
        source: "community_report",
        detail: "Pulled liquidity from several launches."
      },
      24 * 5
    ),
    exposure(sanctioned, mixer, {
      category: "mixer",
      hopDistance: 1,
      exposureAmountUsd: 250_000,
      exposurePct: 40,
      txCount: 18
    }),
    exposure(oneHop, sanctioned, {
      category: "sanctions",
      counterpartyLabel: "sanctioned",
      hopDistance: 1,
      exposureAmountUsd: 42_000,
      exposurePct: 35,
      txCount: 6,
      direction: "inbound"
    }),
    exposure(oneHop, exchange, {
      category: "exchange",
      counterpartyLabel: "exchange",
      hopDistance: 1,
      exposureAmountUsd: 60_000,
      exposurePct: 50,
      txCount: 40
    }),
    exposure(twoHop, sanctioned, {
      category: "sanctions",
      counterpartyLabel: "sanctioned",
      hopDistance: 2,
      exposureAmountUsd: 8_000,
      exposurePct: 12,
      txCount: 2
    }),
    exposure(twoHop, exchange, {
      category: "exchange",
      counterpartyLabel: "exchange",
      hopDistance: 1,
      exposureAmountUsd: 30_000,
      exposurePct: 60,
      txCount: 25
    }),
    exposure(twoHop, serialRugger, {
      category: "deployer",
      counterpartyLabel: "rugger",
      hopDistance: 1,
      exposureAmountUsd: 3_000,
      exposurePct: 5,
      txCount: 3,
      exposureType: "swap"
    }),
    exposure(clean, exchange, {
      category: "exchange",
      counterpartyLabel: "exchange",
      hopDistance: 1,
      exposureAmountUsd: 120_000,
      exposurePct: 80,
      txCount: 140
    }),
    exposure(clean, oneHop, {
      category: "trader",
      hopDistance: 1,
      exposureAmountUsd: 900,
      exposurePct: 1,
      txCount: 2,
      exposureType: "swap"
    })
  ]

  // Three more launches of the serial rugger: two drained after launch, one honeypot.
  const scans = [
    ["Moon Drain", "MDRN", false],
    ["Rocket Pull", "RPUL", false],
    ["Trap Coin", "TRAP", true]
  ].flatMap(([name, symbol, honeypot]) => [
    launch(now, serialRugger, String(name), String(symbol), {
      hoursAgo: 24 * 6,
      liquidityUsd: 85_000,
      honeypot: false
    }),
    launch(now, serialRugger, String(name), String(symbol), {
      hoursAgo: 24 * 2,
      liquidityUsd: honeypot === true ? 40_000 : 120,
      honeypot: honeypot === true
    })
  ])

  return {
    lines,
    scans,
    showcase: {
      sanctioned_wallet: sanctioned,
      serial_rugger: serialRugger,
      one_hop_wallet: oneHop,
      two_hop_wallet: twoHop,
      clean_wallet: clean,
      no_evidence_wallet: noEvidence
    }
  }
}
