import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chromiumPath, freePort, startDemoApi } from "./demoApi.ts"

// /docs as a person uses it, in headless Chromium (`npm run check:docs`; needs a `chromium` on PATH, e.g.
// `apt-get install chromium`): the API runs on the embedded demo, the page loads with every request it makes
// recorded, Test Request on the public risk-check opens Scalar's client with a demo mint, and Send answers 200.
// The page must load nothing from another host (it works offline) and send to this server's /api/... path.
const chromium = chromiumPath("docs check")
const profile = mkdtempSync(join(tmpdir(), "risk-api-chromium-"))
const api = startDemoApi("docs")
const origin = api.url
const debugPort = freePort()
const browser = Bun.spawn(
  [
    chromium,
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${profile}`,
    `--remote-debugging-port=${debugPort}`,
    "--window-size=1400,1000",
    "about:blank"
  ],
  { stdout: "ignore", stderr: "ignore" }
)

interface Message {
  readonly id?: number
  readonly method?: string
  readonly params?: Record<string, any>
  readonly result?: Record<string, any>
  readonly error?: { readonly message: string }
}

const waitFor = async <A>(what: string, probe: () => Promise<A | undefined>, seconds = 60): Promise<A> => {
  const deadline = Date.now() + seconds * 1000
  while (Date.now() < deadline) {
    const found = await probe().catch(() => undefined)
    if (found !== undefined) return found
    await Bun.sleep(200)
  }
  throw new Error(`timed out waiting for ${what}`)
}

let failed = false
try {
  await api.ready()
  const target = await waitFor("Chromium's page", async () => {
    const pages = (await (await fetch(`http://127.0.0.1:${debugPort}/json/list`)).json()) as Array<{
      type: string
      webSocketDebuggerUrl: string
    }>
    return pages.find((page) => page.type === "page")?.webSocketDebuggerUrl
  })
  const socket = new WebSocket(target)
  await new Promise((resolve, reject) => {
    socket.onopen = resolve
    socket.onerror = reject
  })
  let nextId = 0
  const pending = new Map<number, (message: Message) => void>()
  const requested: Array<string> = []
  const answered: Array<{ url: string; status: number }> = []
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as Message
    if (message.id !== undefined) pending.get(message.id)?.(message)
    if (message.method === "Network.requestWillBeSent") requested.push(String(message.params?.request?.url))
    if (message.method === "Network.responseReceived") {
      answered.push({ url: String(message.params?.response?.url), status: Number(message.params?.response?.status) })
    }
  }
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<Message>((resolve) => {
      const id = ++nextId
      pending.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  const evaluate = async <A>(expression: string): Promise<A> => {
    const reply = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true })
    if (reply.error !== undefined || reply.result?.exceptionDetails !== undefined) {
      throw new Error(
        `${expression.slice(0, 80)}: ${reply.error?.message ?? JSON.stringify(reply.result?.exceptionDetails)}`
      )
    }
    return reply.result?.result?.value as A
  }
  await send("Network.enable")
  await send("Page.enable")
  await send("Page.navigate", { url: `${origin}/docs` })

  // The public risk-check's Test Request button (Scalar renders one per operation once it is in view).
  const clickTestRequest = `(() => {
    const section = [...document.querySelectorAll("section, div")].find((node) =>
      node.id !== undefined && /GET\\/api\\/risk-check\\/\\{address\\}$/i.test(node.id))
    section?.scrollIntoView()
    const button = [...(section ?? document).querySelectorAll("button")].find((node) => /Test Request/i.test(node.textContent ?? ""))
    if (button === undefined) return undefined
    // The response panel beside it: the recorded example, not placeholders made up from the schema.
    const panel = section.innerText
    button.click()
    return { placeholders: /: "string"|-2147483648/.test(panel), recorded: panel.includes("BMMUVxKZjspbQB6z8MD6FhJSkKfAmC4tB7XGd4JqXYsz") }
  })()`
  const panel = await waitFor("the risk-check's Test Request button", () =>
    evaluate<{ placeholders: boolean; recorded: boolean } | undefined>(clickTestRequest)
  )
  // DOCS_SCREENSHOT=file.png: what the page shows with the client open, to look at.
  const screenshot = process.env.DOCS_SCREENSHOT
  if (screenshot !== undefined) {
    await Bun.sleep(1000)
    await Bun.write(screenshot, Buffer.from(String((await send("Page.captureScreenshot")).result?.data), "base64"))
  }
  const clickSend = `(() => {
    const button = [...document.querySelectorAll("button")].find((node) => /^\\s*Send\\b/i.test(node.textContent ?? "") && node.offsetParent !== null)
    if (button === undefined) return undefined
    const text = document.body.innerText
    const shown = text.match(/https?:\\/\\/[^\\s]*\\/api\\/risk-check\\/[^\\s]*/)?.[0] ?? ""
    button.click()
    return { shown, doubleSlash: /(^|[^:])\\/\\/api\\//.test(text) }
  })()`
  const { doubleSlash, shown } = await waitFor("Scalar's Send button", () =>
    evaluate<{ shown: string; doubleSlash: boolean } | undefined>(clickSend)
  )
  const answer = await waitFor(
    "the risk-check's answer",
    async () => answered.find(({ url }) => url.startsWith(`${origin}/api/risk-check/`)),
    30
  )

  const outside = requested.filter(
    (url) => !url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:") && url !== "about:blank"
  )
  console.log(
    `docs page on ${origin}/docs: ${requested.length} requests; Send showed ${shown || "(no URL shown)"}; answer ${JSON.stringify(answer)}`
  )
  const checks: ReadonlyArray<readonly [string, boolean]> = [
    ["the page loads nothing from another host", outside.length === 0],
    [
      "the risk-check's response panel shows the recorded example, no placeholders",
      panel.recorded && !panel.placeholders
    ],
    [
      "Test Request on the public risk-check sends to this server with a demo mint",
      /\/api\/risk-check\/[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(answer.url)
    ],
    ["and the answer is 200", answer.status === 200],
    ['the page shows no path as //api/... (the document\'s server "/" joined to a path)', !doubleSlash]
  ]
  for (const [name, held] of checks) {
    console.log(`${held ? "held" : "FAILED"}: ${name}`)
    failed ||= !held
  }
  if (outside.length > 0) console.log(`outside requests: ${outside.join(", ")}`)
  socket.close()
} catch (error) {
  console.error("docs check failed:", error)
  failed = true
} finally {
  browser.kill()
  await Promise.all([browser.exited, api.stop()])
  rmSync(profile, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
