import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { SCOPES } from "../../../src/domain/Scope.ts"
import { type Deployment, newDeployment, runCli, type RunningServer, startServer } from "../../support/process.ts"

// Every curl of the README, run as pasted against `npm start`'s demo (a server on a new database, seeded), with
// a key created as the README says (`accounts create`, then `keys create`). Only the README's placeholders are
// filled in: $KEY, <account-id>, and the ids an earlier example returned (<watch_id>, <id>); <event-id> names no
// delivery, so its example must answer the documented 404. Each must answer 2xx with a JSON body.

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")

/** Each curl command of the README's sh blocks, its continuation lines joined and its trailing comment dropped. */
const curls = (): ReadonlyArray<string> => {
  const commands: Array<string> = []
  for (const [, block] of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let pending: string | undefined
    for (const line of block!.split("\n")) {
      const text = pending === undefined ? line : `${pending} ${line.trim()}`
      if (pending === undefined && !line.startsWith("curl ")) continue
      if (text.endsWith("\\")) pending = text.slice(0, -1).trimEnd()
      else {
        pending = undefined
        commands.push(text.replace(/\s+#\s.*$/, ""))
      }
    }
  }
  return commands
}

let deployment: Deployment
let server: RunningServer
let key = ""
let accountId = ""

beforeAll(async () => {
  deployment = await newDeployment()
  // As the README's webhook example says to start the demo for a receiver on this machine.
  server = await startServer({ ...deployment.env, SEED_DEMO: "true", WEBHOOK_ALLOW_LOOPBACK: "true" })
  const created = await runCli(["accounts", "create", "--name", "My bot", "--plan", "pro"], deployment.env)
  accountId = /^account (\S+)/m.exec(created.stdout)?.[1] ?? ""
  const scopes = SCOPES.flatMap((scope) => ["--scope", scope])
  key = (await runCli(["keys", "create", accountId, ...scopes], deployment.env)).stdout.trim()
}, 120_000)

afterAll(async () => {
  server.process.kill("SIGTERM")
  await server.process.exited
  await deployment.cleanup()
})

interface Ran {
  readonly command: string
  readonly status: number
  readonly body: unknown
}

describe("the README's curl examples against the demo", () => {
  test("each answers 2xx with JSON, as pasted", async () => {
    const commands = curls()
    expect(commands.length).toBeGreaterThanOrEqual(15)
    const ids: Record<string, string> = { "<account-id>": accountId, "<event-id>": crypto.randomUUID() }
    const ran: Array<Ran> = []
    for (const pasted of commands) {
      let command = pasted.replaceAll("http://localhost:3000", server.url)
      for (const [placeholder, value] of Object.entries(ids)) command = command.replaceAll(placeholder, value)
      const unfilled = /<[\w-]+>/.exec(command)
      if (unfilled !== null) {
        ran.push({
          command: pasted,
          status: 0,
          body: `no value for ${unfilled[0]}: the example that returns it failed`
        })
        continue
      }
      const child = Bun.spawn(["bash", "-c", `${command} -w '\\n%{http_code}'`], {
        env: { PATH: process.env.PATH ?? "", KEY: key },
        stdout: "pipe",
        stderr: "pipe"
      })
      const output = await new Response(child.stdout).text()
      await child.exited
      const cut = output.lastIndexOf("\n")
      const status = Number(output.slice(cut + 1))
      let body: unknown
      try {
        body = JSON.parse(output.slice(0, cut))
      } catch {
        body = output.slice(0, cut)
      }
      ran.push({ command: pasted, status, body })
      // Ids the next examples name: a watch's, and the webhook endpoint's.
      const data = (body as { data?: { watch_id?: string; id?: string; url?: string } }).data
      if (typeof data?.watch_id === "string") ids["<watch_id>"] = data.watch_id
      if (typeof data?.id === "string" && typeof data.url === "string") ids["<id>"] = data.id
    }
    const wrong = ran.filter(
      ({ body, command, status }) =>
        typeof body !== "object" || (command.includes("<event-id>") ? status !== 404 : status < 200 || status > 299)
    )
    expect(
      wrong.map(
        ({ body, command, status }) => `${status} ${command.slice(0, 120)} → ${JSON.stringify(body).slice(0, 300)}`
      )
    ).toEqual([])
  }, 120_000)
})
