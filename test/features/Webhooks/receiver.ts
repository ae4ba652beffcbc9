import { createHmac, timingSafeEqual } from "node:crypto"

// A real HTTP receiver on 127.0.0.1 for the webhook tests, and the verification the README shows.

/** The README's receiver check: Standard Webhooks signature over `id.timestamp.body`, within 5 minutes. */
export const verify = (secret: string, headers: Headers, body: string): boolean => {
  const [id, timestamp, signatures] = ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) =>
    headers.get(name)
  )
  if (!id || !timestamp || !signatures || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false
  const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
    .update(`${id}.${timestamp}.${body}`)
    .digest()
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",")
    const given = Buffer.from(signature ?? "", "base64")
    return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
  })
}

interface Received {
  readonly id: string
  readonly headers: Headers
  readonly body: string
  readonly at: number
}

/** What the receiver answers a request: a status, or "hang" (never answers). */
export type Answer = number | "hang"

export const startReceiver = (answers: (request: number) => Answer = () => 200) => {
  const received: Array<Received> = []
  const hung: Array<() => void> = []
  let requests = 0
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async (request) => {
      const body = await request.text()
      const answer = answers(requests++)
      received.push({ id: request.headers.get("webhook-id") ?? "", headers: request.headers, body, at: Date.now() })
      if (answer === "hang") return new Promise<Response>((resolve) => hung.push(() => resolve(new Response("late"))))
      return new Response(answer >= 200 && answer < 300 ? "ok" : "nope", { status: answer })
    }
  })
  return {
    url: `http://127.0.0.1:${server.port}/hooks/risk`,
    received,
    stop: () => {
      for (const release of hung) release()
      server.stop(true)
    }
  }
}

export const waitFor = async <A>(
  what: string,
  probe: () => A | undefined | Promise<A | undefined>,
  timeoutMs = 10_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value !== undefined) return value
    await Bun.sleep(10)
  }
  throw new Error(`timed out waiting for ${what}`)
}
