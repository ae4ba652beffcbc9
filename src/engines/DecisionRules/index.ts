export {
  CAUTION_FLAGS,
  DECISION_MODEL_VERSION,
  PRESSURE_LEVELS,
  SELL_BLOCKING_FLAGS
} from "./model.ts"
export { LIMITATIONS } from "./limitations.ts"
export { monitorDecision } from "./monitor.ts"
export { MONITOR_FALLBACK, MONITOR_RULES } from "./monitorRules.ts"
export { ACTION_BY_DECISION, preTradeDecision } from "./preTrade.ts"
export { PRE_TRADE_FALLBACK, PRE_TRADE_RULES } from "./preTradeRules.ts"
export {
  evaluateWatchRules,
  isWatchMetric,
  metricsOf,
  WATCH_COMPARISONS,
  WATCH_METRICS,
  type EntryReference,
  type WatchMetric,
  type WatchRule,
  WatchRuleSchema
} from "./watchRules.ts"
export type {
  MonitorDecision,
  MonitorInput,
  PreTradeDecision,
  PreTradeInput,
  PressureLevel,
  WatchMetrics
} from "./types.ts"
