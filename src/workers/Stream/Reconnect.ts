import { Duration } from "effect"

// What both stream sources do when their connection fails: wait, and say why without a secret.

/** Backoff before the n-th reconnect: 250 ms doubling to the cap, with jitter. */
export const backoff = (attempt: number, capMs: number) =>
  Duration.millis(Math.min(capMs, 250 * 2 ** Math.min(attempt, 16)) * (0.75 + Math.random() / 2))

/**
 * A failure's message for a log line, at most 200 characters, with each of `secrets` (a provider URL, a
 * token) cut out should the client have echoed it.
 */
export const reasonOf = (error: unknown, secrets: ReadonlyArray<string> = []): string => {
  // Effect.tryPromise wraps what the promise threw in an UnknownException: report the inner error.
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : error
  let text = inner instanceof Error ? inner.message : String(inner)
  // A secret shorter than 6 characters would cut ordinary words; no provider's key or URL is that short.
  for (const secret of secrets) if (secret.length >= 6) text = text.split(secret).join("[redacted]")
  return text.slice(0, 200)
}
