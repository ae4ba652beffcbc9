import { describe, expect, test } from "bun:test"
import { ConfigProvider, Effect, Either, Option, Redacted } from "effect"
import { DatabaseConfig } from "../../../src/platform/Sql/Config.ts"

// DATABASE_READ_URL is parsed as DATABASE_URL is: a postgres URL, kept redacted, and only beside DATABASE_URL.

const parse = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(Effect.withConfigProvider(DatabaseConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )

describe("DATABASE_READ_URL", () => {
  const primary = "postgres://api:primary-secret@db:5432/risk"
  const replica = "postgresql://api:replica-secret@replica:5432/risk?sslmode=require"

  test("is optional, and redacted when set: neither printing nor logging the config shows it", () => {
    const without = parse({ DATABASE_URL: primary })
    expect(Either.isRight(without) && Option.isNone(without.right.readUrl)).toBe(true)
    const config = parse({ DATABASE_URL: primary, DATABASE_READ_URL: replica })
    if (Either.isLeft(config)) throw new Error(String(config.left))
    const readUrl = Option.getOrThrow(config.right.readUrl)
    expect(Redacted.value(readUrl)).toBe(replica)
    expect(`${String(readUrl)} ${JSON.stringify(config.right)}`).not.toContain("replica-secret")
  })

  test("must be a postgres URL, and needs DATABASE_URL; the error does not repeat it", () => {
    for (const [env, message] of [
      [{ DATABASE_URL: primary, DATABASE_READ_URL: "mysql://api:replica-secret@replica/risk" }, "must be a postgres"],
      [{ DATABASE_READ_URL: replica }, "DATABASE_READ_URL needs DATABASE_URL"]
    ] as const) {
      const config = parse(env)
      expect(Either.isLeft(config)).toBe(true)
      const error = Either.isLeft(config) ? String(config.left) : ""
      expect(error).toContain(message)
      expect(error).not.toContain("replica-secret")
    }
  })
})
