import { describe, expect, test } from "bun:test"
import { Option, Redacted } from "effect"
import { addressRefusal, targetOf } from "../../../src/features/Webhooks/UrlGuard.ts"
import { openSecret, sealSecret, signatureOf } from "../../../src/features/Webhooks/Secret.ts"
import { retryDelayMs } from "../../../src/features/Webhooks/Config.ts"
import { databaseKind } from "../../support/database.ts"
import { postJson } from "../../support/http.ts"
import { testSettings, webhookHarness } from "./harness.ts"

// The webhook endpoint routes: success, every documented error, bad input; and the URL guard's table.
const h = webhookHarness()
const { key } = await h.keyWith()
const { key: otherKey } = await h.keyWith()
const { key: watchOnlyKey } = await h.keyWith(["watch:write"])

const create = (body: unknown, withKey = key) => h.post("/api/v1/webhooks", body, withKey)
const codeOf = (answer: { status: number; body: { error?: { code: string } } }) => [
  answer.status,
  answer.body.error?.code
]

describe(`/api/v1/webhooks on ${databaseKind}`, () => {
  test("create answers 201 with the secret once; list and read never show it; delete removes it", async () => {
    const created = await create({ url: "http://127.0.0.1:9/hook", description: "bot" })
    expect(created.status).toBe(201)
    const { data, meta } = created.body
    expect(Object.keys(data).sort()).toEqual([
      "created_at",
      "description",
      "disabled_at",
      "disabled_reason",
      "id",
      "secret",
      "status",
      "url"
    ])
    expect(data).toMatchObject({
      url: "http://127.0.0.1:9/hook",
      description: "bot",
      status: "enabled",
      disabled_reason: null
    })
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/)
    expect(meta).toMatchObject({ scope: "webhook:write", costUnits: 0, contractVersion: "webhooks-v1" })
    const read = await h.get(`/api/v1/webhooks/${data.id}`, key)
    const list = await h.get("/api/v1/webhooks", key)
    expect([
      read.status,
      "secret" in read.body.data,
      list.status,
      list.body.data.some((e: { secret?: string }) => e.secret !== undefined)
    ]).toEqual([200, false, 200, false])
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(data.id)
    expect(JSON.stringify(read.body)).not.toContain(data.secret)
    // Stored sealed under WEBHOOK_SECRET_KEY, not in the clear.
    const [row] = await h.sql(
      (sql) => sql<{ secret: string }>`select secret from webhook_endpoints where id = ${data.id}`
    )
    expect([
      row!.secret.startsWith("enc:v1:"),
      row!.secret.includes(data.secret),
      openSecret(testSettings.secretKey, row!.secret)
    ]).toEqual([true, false, data.secret])
    expect((await h.del(`/api/v1/webhooks/${data.id}`, key)).body.data).toEqual({ id: data.id, deleted: true })
    expect(codeOf(await h.get(`/api/v1/webhooks/${data.id}`, key))).toEqual([404, "webhook_not_found"])
  })

  test("rotate answers a new secret; deliveries lists an endpoint's events (none yet)", async () => {
    const { id, secret } = (await create({ url: "http://localhost:9/hook" })).body.data
    const rotated = await h.post(`/api/v1/webhooks/${id}/rotate-secret`, {}, key)
    expect([rotated.status, rotated.body.data.id, rotated.body.data.secret === secret]).toEqual([200, id, false])
    const [row] = await h.sql(
      (sql) => sql<{ previous_secret: string }>`select previous_secret from webhook_endpoints where id = ${id}`
    )
    expect(openSecret(testSettings.secretKey, row!.previous_secret)).toBe(secret)
    expect((await h.get(`/api/v1/webhooks/${id}/deliveries?limit=5`, key)).body.data).toEqual([])
    await h.del(`/api/v1/webhooks/${id}`, key)
  })

  test("another account's endpoint is 404 on every route; an unknown event is 404 webhook_event_not_found", async () => {
    const { id } = (await create({ url: "http://127.0.0.1:9/mine" })).body.data
    const event = crypto.randomUUID()
    for (const answer of [
      await h.get(`/api/v1/webhooks/${id}`, otherKey),
      await h.del(`/api/v1/webhooks/${id}`, otherKey),
      await h.post(`/api/v1/webhooks/${id}/rotate-secret`, {}, otherKey),
      await h.get(`/api/v1/webhooks/${id}/deliveries`, otherKey),
      await h.post(`/api/v1/webhooks/${id}/deliveries/${event}/redeliver`, {}, otherKey)
    ])
      expect(codeOf(answer)).toEqual([404, "webhook_not_found"])
    expect(codeOf(await h.post(`/api/v1/webhooks/${id}/deliveries/${event}/redeliver`, {}, key))).toEqual([
      404,
      "webhook_event_not_found"
    ])
    expect(codeOf(await h.get("/api/v1/webhooks/not-a-uuid", key))).toEqual([404, "webhook_not_found"])
    await h.del(`/api/v1/webhooks/${id}`, key)
  })

  test("401 without a key, 403 without the scope", async () => {
    expect(codeOf(await h.call("/api/v1/webhooks", { method: "GET" }))).toEqual([401, "unauthorized"])
    const forbidden = await create({ url: "http://127.0.0.1:9/x" }, watchOnlyKey)
    expect([...codeOf(forbidden), forbidden.body.error.message]).toEqual([
      403,
      "forbidden",
      "This key lacks the scope this route needs: webhook:write."
    ])
  })

  test("the per-account cap is 409 webhook_limit_reached", async () => {
    const { key: capped } = await h.keyWith()
    for (let i = 0; i < testSettings.endpointsPerAccount; i++)
      expect((await create({ url: `http://127.0.0.1:9/${i}` }, capped)).status).toBe(201)
    const refused = await create({ url: "http://127.0.0.1:9/one-more" }, capped)
    expect([...codeOf(refused), refused.body.error.message]).toEqual([
      409,
      "webhook_limit_reached",
      "At most 3 webhook endpoints per account."
    ])
  })

  test("URLs into private, link-local, multicast or reserved ranges, other schemes and credentials are 400 webhook_url_refused saying why", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["https://10.1.2.3/hook", "10.1.2.3 is a private address (10.0.0.0/8)"],
      ["https://192.168.0.10/hook", "a private address (192.168.0.0/16)"],
      ["https://172.20.0.1/hook", "a private address (172.16.0.0/12)"],
      ["https://169.254.169.254/latest/meta-data", "a link-local address"],
      ["https://100.64.0.1/", "carrier-grade NAT"],
      ["https://224.0.0.251/", "a multicast address"],
      ["https://0.0.0.0/", "'this network'"],
      ["https://[fd12:3456::1]/", "a unique-local address (fc00::/7)"],
      ["https://[fe80::1]/", "a link-local address (fe80::/10)"],
      ["https://[::ffff:10.0.0.1]/", "a private address (10.0.0.0/8)"],
      ["https://[ff02::1]/", "a multicast address (ff00::/8)"],
      ["ftp://example.com/hook", "the scheme ftp: is not https"],
      ["http://example.com/hook", "http is allowed only to loopback"],
      ["https://user:secret@example.com/hook", "carries credentials"],
      ["https://no-such-host.invalid/hook", "does not resolve"],
      ["not a url", "not an absolute URL"]
    ]
    for (const [url, reason] of cases) {
      const refused = await create({ url })
      expect([url, ...codeOf(refused)]).toEqual([url, 400, "webhook_url_refused"])
      expect([url, refused.body.error.message]).toEqual([url, expect.stringContaining(reason)])
    }
  })

  test("bad input is 400 naming the problem: malformed JSON, wrong types, missing or unknown fields, oversize; bad limits", async () => {
    const raw = (body: string) => h.call("/api/v1/webhooks", postJson(body, { authorization: `Bearer ${key}` }))
    expect(codeOf(await raw('{"url":'))).toEqual([400, "malformed_json"])
    for (const body of [
      {},
      { url: 42 },
      { url: "https://example.com", extra: true },
      { url: "https://e.com", description: 7 },
      { url: `https://example.com/${"a".repeat(2_100)}` },
      { url: "https://example.com", description: "x".repeat(201) },
      { url: "https://example.com", description: "nul\u0000" }
    ]) {
      expect([JSON.stringify(body).slice(0, 60), ...codeOf(await create(body))]).toEqual([
        JSON.stringify(body).slice(0, 60),
        400,
        "invalid_request"
      ])
    }
    const { id } = (await create({ url: "http://127.0.0.1:9/limits" })).body.data
    for (const query of ["limit=0", "limit=101", "limit=abc", "other=1"]) {
      expect([query, ...codeOf(await h.get(`/api/v1/webhooks/${id}/deliveries?${query}`, key))]).toEqual([
        query,
        400,
        "invalid_request"
      ])
    }
    await h.del(`/api/v1/webhooks/${id}`, key)
  })

  test("set-watch notify: true, an endpoint id of the account, or 404 webhook_not_found; a bad value is 400", async () => {
    const { id } = (await create({ url: "http://127.0.0.1:9/notify" })).body.data
    const mint = "3RPwfg3zWDUQQTX1ybf6rUiyHZDizbSJGRyMLtd5bUDN"
    const rules = [{ metric: "safety_score", comparison: "lt", threshold: 60 }]
    const watch = (notify: unknown, withKey = key) =>
      h.post("/api/v1/decision/set-watch", { mint, rules, notify }, withKey)
    expect((await watch(true)).body.data.notify).toBe(true)
    expect((await watch(id)).body.data.notify).toBe(id)
    expect((await h.post("/api/v1/decision/set-watch", { mint, rules }, key)).body.data.notify).toBe(false)
    const { key: otherWatchKey } = await h.keyWith(["watch:write"])
    expect(codeOf(await watch(id, otherWatchKey))).toEqual([404, "webhook_not_found"])
    expect(codeOf(await watch("yes"))).toEqual([400, "invalid_request"])
    expect(codeOf(await watch(1))).toEqual([400, "invalid_request"])
  })
})

describe("the URL guard, signatures and the retry schedule", () => {
  test("loopback needs WEBHOOK_ALLOW_LOOPBACK; public addresses pass", () => {
    expect(targetOf("http://127.0.0.1:8080/x", false)).toEqual({ refused: expect.stringContaining("loopback") })
    expect(targetOf("https://localhost/x", false)).toEqual({
      refused: "localhost is refused (WEBHOOK_ALLOW_LOOPBACK is off)"
    })
    expect(targetOf("https://[::1]/x", false)).toEqual({ refused: expect.stringContaining("::1") })
    expect("target" in targetOf("http://127.0.0.1:8080/x", true)).toBe(true)
    expect("target" in targetOf("https://hooks.example.com/x", false)).toBe(true)
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "203.0.114.1"])
      expect([address, addressRefusal(address, false)]).toEqual([address, undefined])
    for (const address of [
      "198.18.0.1",
      "192.0.2.5",
      "255.255.255.255",
      "::",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
      "2001:db8::1"
    ]) {
      expect([address, addressRefusal(address, true) === undefined]).toEqual([address, false])
    }
  })

  test("a signature is Standard Webhooks v1 (HMAC-SHA256 of id.timestamp.body, base64); sealed secrets open only with their key", () => {
    // The Standard Webhooks reference test vector.
    expect(
      signatureOf(
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msg_p5jXN8AQM9LWM0D4loKWxJek",
        1614265330,
        '{"test": 2432232314}'
      )
    ).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    const sealed = sealSecret(testSettings.secretKey, "whsec_abc")
    expect(openSecret(testSettings.secretKey, sealed)).toBe("whsec_abc")
    expect(() => openSecret(Option.some(Redacted.make(Buffer.alloc(32, 9).toString("base64"))), sealed)).toThrow()
    expect(sealSecret(Option.none(), "whsec_abc")).toBe("plain:whsec_abc")
  })

  test("the default schedule: 12 attempts over about a day, each wait within ±20% of base × 3^(n-1), capped", () => {
    const defaults = { retryBaseMs: 5_000, retryMaxMs: 6 * 3_600_000 }
    const waits = Array.from({ length: 11 }, (_, i) => retryDelayMs(defaults, i + 1, 0.5))
    expect(waits.slice(0, 4)).toEqual([5_000, 15_000, 45_000, 135_000])
    expect(waits.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(22.6, 1)
    expect([retryDelayMs(defaults, 1, 0), retryDelayMs(defaults, 1, 1)]).toEqual([4_000, 6_000])
  })
})
