import { chromiumPath, startDemoApi } from "./demoApi.ts"

// A browser page on another origin calls the API, in headless Chromium (`npm run check:browser`; needs a
// `chromium` on PATH, e.g. `apt-get install chromium`). The API runs on the embedded demo; a page served
// from another port fetches the public risk-check (CORS must let it read the answer and the exposed
// rate-limit headers) and a keyed route (CORS must refuse an origin not in CORS_ALLOWED_ORIGINS).
const MINT = "7FYCFZiQEh6sGbYUwieEAARyStv6Az5spi9wGVxWEkVa" // a demo mint (README, risk-check example)
const chromium = chromiumPath("browser check")
const api = startDemoApi("browser")
const apiUrl = api.url
const page = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () =>
    new Response(
      `<!doctype html><html><body><script>
      (async () => {
        const out = {}
        try {
          const r = await fetch("${apiUrl}/api/risk-check/${MINT}")
          const body = await r.json()
          out.public = { status: r.status, verdict: body.verdict, ratelimit: r.headers.get("ratelimit"), requestId: r.headers.get("x-request-id") }
        } catch (e) { out.public = { error: String(e) } }
        try {
          const r = await fetch("${apiUrl}/api/v1/token/risk", { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer rsk_x" }, body: JSON.stringify({ address: "${MINT}" }) })
          out.keyed = { status: r.status }
        } catch (e) { out.keyed = { error: String(e) } }
        document.body.setAttribute("data-result", JSON.stringify(out))
      })()
    </script></body></html>`,
      { headers: { "content-type": "text/html" } }
    )
})

let failed = false
try {
  await api.ready()
  const browser = Bun.spawn(
    [
      chromium,
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--virtual-time-budget=10000",
      "--dump-dom",
      `http://127.0.0.1:${page.port}/`
    ],
    { stdout: "pipe", stderr: "ignore" }
  )
  const dom = await new Response(browser.stdout).text()
  await browser.exited
  const found = /data-result="([^"]*)"/.exec(dom)?.[1]?.replaceAll("&quot;", '"')
  const result =
    found === undefined
      ? undefined
      : (JSON.parse(found) as {
          public?: {
            status?: number
            verdict?: string
            ratelimit?: string | null
            requestId?: string | null
            error?: string
          }
          keyed?: { status?: number; error?: string }
        })
  console.log(`page on http://127.0.0.1:${page.port} calling ${apiUrl}:`, JSON.stringify(result))
  const checks: ReadonlyArray<readonly [string, boolean]> = [
    [
      "the public risk-check is readable from another origin",
      result?.public?.status === 200 && typeof result.public.verdict === "string"
    ],
    [
      "its rate-limit and request-id headers are exposed",
      Boolean(result?.public?.ratelimit) && Boolean(result?.public?.requestId)
    ],
    ["a keyed route refuses an origin not in CORS_ALLOWED_ORIGINS", result?.keyed?.error !== undefined]
  ]
  for (const [name, held] of checks) {
    console.log(`${held ? "held" : "FAILED"}: ${name}`)
    failed ||= !held
  }
} catch (error) {
  console.error(`browser check: ${error instanceof Error ? error.message : String(error)}`)
  failed = true
} finally {
  page.stop(true)
  await api.stop()
}
process.exit(failed ? 1 : 0)
