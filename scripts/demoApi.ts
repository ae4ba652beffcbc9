import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

// What the browser checks (scripts/docs-check.ts, scripts/browser-cors-check.ts) share: Debian's Chromium on
// PATH, a free port, and the API on a new embedded database seeded with the demo.

/** The Chromium binary, or exit 2 saying how to get one. */
export const chromiumPath = (check: string): string => {
  const found = Bun.which("chromium") ?? Bun.which("chromium-browser") ?? Bun.which("google-chrome")
  if (found === null) {
    console.error(`${check}: no chromium on PATH (apt-get install chromium)`)
    process.exit(2)
  }
  return found
}

export const freePort = (): number => {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

export interface DemoApi {
  readonly url: string
  readonly process: Bun.Subprocess
  /** Resolves once /ready answers 200; throws if the API exits or 60 s pass first. */
  readonly ready: () => Promise<void>
  /** Stops the API and removes its data directory. */
  readonly stop: () => Promise<void>
}

export const startDemoApi = (name: string): DemoApi => {
  const dataDir = mkdtempSync(join(tmpdir(), `risk-api-${name}-`))
  const port = freePort()
  const api = Bun.spawn([process.execPath, new URL("../src/main.ts", import.meta.url).pathname, "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warning" },
    stdout: "ignore",
    stderr: "inherit"
  })
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    process: api,
    ready: async () => {
      const deadline = Date.now() + 60_000
      while (
        !(await fetch(`${url}/ready`).then(
          (r) => r.ok,
          () => false
        ))
      ) {
        if (Date.now() > deadline || api.exitCode !== null) throw new Error("the API did not become ready")
        await Bun.sleep(200)
      }
    },
    stop: async () => {
      api.kill("SIGTERM")
      await api.exited
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
