import { Config, Context, Layer, Redacted } from "effect"

// The webhook settings, from the environment (README, "Watch alerts").

const bounded = (name: string, min: number, max: number, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be between ${min} and ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

// 32 bytes, base64: the key that encrypts signing secrets at rest (AES-256-GCM).
const secretKey = Config.redacted("WEBHOOK_SECRET_KEY").pipe(
  Config.validate({
    message: "WEBHOOK_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32)",
    validation: (key) => Buffer.from(Redacted.value(key), "base64").length === 32
  }),
  Config.option
)

export const WebhookConfig = Config.all({
  allowLoopback: Config.boolean("WEBHOOK_ALLOW_LOOPBACK").pipe(Config.withDefault(false)),
  endpointsPerAccount: bounded("WEBHOOK_ENDPOINTS_PER_ACCOUNT", 1, 1_000, 10),
  timeoutMs: bounded("WEBHOOK_TIMEOUT_MS", 100, 60_000, 5_000),
  maxAttempts: bounded("WEBHOOK_MAX_ATTEMPTS", 1, 50, 12),
  retryBaseMs: bounded("WEBHOOK_RETRY_BASE_MS", 10, 3_600_000, 5_000),
  retryMaxMs: bounded("WEBHOOK_RETRY_MAX_MS", 10, 86_400_000, 6 * 3_600_000),
  workers: bounded("WEBHOOK_WORKERS", 0, 64, 4),
  pollMs: bounded("WEBHOOK_POLL_MS", 10, 60_000, 200),
  evaluateMs: bounded("WEBHOOK_EVALUATE_MS", 10, 60_000, 250),
  secretKey
})
export type WebhookConfig = Config.Config.Success<typeof WebhookConfig>

/** The settings as a service: read from the environment once (Live), or given by a test. */
export class WebhookSettings extends Context.Tag("WebhookSettings")<WebhookSettings, WebhookConfig>() {
  static readonly Live = Layer.effect(WebhookSettings, WebhookConfig)
}

/**
 * The wait after failed attempt `attempt` (1-based): base × 3^(attempt-1), at most the cap, ±20% jitter.
 * With the defaults, 12 attempts span about 22.6 hours (5 s, 15 s, 45 s, ... then 6 h waits).
 */
export const retryDelayMs = (
  config: Pick<WebhookConfig, "retryBaseMs" | "retryMaxMs">,
  attempt: number,
  random = Math.random()
): number => Math.round(Math.min(config.retryBaseMs * 3 ** (attempt - 1), config.retryMaxMs) * (0.8 + 0.4 * random))
