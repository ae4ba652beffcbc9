import { describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { Client } from "pg"
import { version as installed } from "../../../node_modules/@electric-sql/pglite/package.json" with { type: "json" }
import template from "../../../src/platform/Sql/embedded/pgdata.json" with { type: "json" }
import { embeddedPostgres } from "../../../src/platform/Sql/Embedded.ts"
import { layTemplate } from "../../../src/platform/Sql/EmbeddedTemplate.ts"

// A new embedded database is laid from a template of PGlite's initdb (src/platform/Sql/EmbeddedTemplate.ts) and run in
// a thread of its own (src/platform/Sql/EmbeddedWorker.ts), with a small buffer pool.

const scratch = () => mkdtempSync(join(tmpdir(), "risk-api-template-"))

/** The rows of the last of `statements`. */
const query = async (port: number, statements: ReadonlyArray<string>) => {
  const client = new Client({ host: "127.0.0.1", port, user: "postgres", database: "postgres" })
  await client.connect()
  try {
    let rows: Array<unknown> = []
    for (const statement of statements) rows = (await client.query(statement)).rows
    return rows
  } finally {
    await client.end()
  }
}

/** Opens the embedded database of `dataDir`, runs `statements` on it, and closes it cleanly. */
const onEmbedded = (dataDir: string, statements: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(embeddedPostgres(dataDir), ({ port }) => Effect.promise(() => query(port, statements)))
    )
  )

describe("the embedded database template", () => {
  test("was made by the installed PGlite (else: bun scripts/embedded-template.ts)", () => {
    expect(template.pglite).toBe(installed)
  })

  test("lays a data directory that opens, keeps what is written across a restart, with 16 MB of shared buffers", async () => {
    const dir = scratch()
    try {
      expect(await layTemplate(dir)).toEqual({})
      expect(readFileSync(join(dir, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/)
      expect(
        await onEmbedded(dir, ["create table kept (n int)", "insert into kept values (42)", "show shared_buffers"])
      ).toEqual([{ shared_buffers: "16MB" }])
      expect(await onEmbedded(dir, ["select n from kept"])).toEqual([{ n: 42 }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 30_000)

  test("never touches a directory that holds a database", async () => {
    const dir = scratch()
    try {
      writeFileSync(join(dir, "PG_VERSION"), "17\n")
      await layTemplate(dir)
      expect(existsSync(join(dir, "global"))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("lays again a directory whose unpacking was cut short (no PG_VERSION yet)", async () => {
    const dir = scratch()
    try {
      await layTemplate(dir)
      const control = readFileSync(join(dir, "global", "pg_control"))
      unlinkSync(join(dir, "PG_VERSION"))
      writeFileSync(join(dir, "global", "pg_control"), "cut short")
      await layTemplate(dir)
      expect(readFileSync(join(dir, "global", "pg_control")).equals(control)).toBe(true)
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
