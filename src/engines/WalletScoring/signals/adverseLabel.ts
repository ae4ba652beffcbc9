import type { WalletLabel } from "../../../domain/WalletEvidence.ts"
import { compareText, isAdverse, normalised, SEVERITY_RANK } from "../levels.ts"
import { ADVERSE_LABEL_POINTS } from "../model.ts"
import type { Finding, SignalRule } from "../types.ts"

// Most severe first; then by source and time, so that the pick does not depend on the order of the evidence.
const byWeight = (a: WalletLabel, b: WalletLabel): number =>
  SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] ||
  compareText(a.source, b.source) ||
  compareText(a.observedAt, b.observedAt)

const findingOf = (reports: ReadonlyArray<WalletLabel>): Finding | null => {
  const [label, ...others] = [...reports].sort(byWeight)
  if (label === undefined) return null
  const corroborating = [...new Set(others.map((other) => other.source))].filter((source) => source !== label.source)
  const note = label.detail === "" ? "" : `: ${label.detail}`
  const also = corroborating.length === 0 ? "" : `; also reported by ${corroborating.join(", ")}`
  return {
    signal: {
      label: "adverse_label",
      severity: label.severity,
      points: ADVERSE_LABEL_POINTS[label.severity],
      detail: `Labelled ${label.label} (category ${label.category}, severity ${label.severity}) by ${label.source}, observed ${label.observedAt}${note}${also}`,
      source: label.source
    },
    headline: `labelled ${label.label} by ${label.source}`
  }
}

// One signal per label name: the same label from several sources counts once, at its most severe report.
export const adverseLabel: SignalRule = ({ labels }) => {
  const byName = new Map<string, Array<WalletLabel>>()
  for (const label of labels.filter((candidate) => isAdverse(candidate.severity))) {
    const name = normalised(label.label)
    byName.set(name, [...(byName.get(name) ?? []), label])
  }
  return [...byName.entries()]
    .sort(([a], [b]) => compareText(a, b))
    .flatMap(([, reports]) => {
      const found = findingOf(reports)
      return found === null ? [] : [found]
    })
}
