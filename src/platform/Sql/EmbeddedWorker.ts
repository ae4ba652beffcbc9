// The embedded database's own thread: PGlite behind its loopback Postgres socket, started by Embedded.ts.
// JavaScriptCore counts PGlite's WebAssembly memory (128 MB and more) in its heap size and lets a heap grow
// by about that size between collections: on the thread that serves HTTP, request garbage piled up to a
// gigabyte and more. Here that pacing only meets this thread's own garbage (the socket's message buffers),
// which it collects itself once it has grown by 4 MB (checked every second); and PGlite's queries no longer
// hold up the HTTP thread. No Effect here: every module this thread imports is loaded again for it (effect
// alone is over 30 MB).
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { layTemplate, templateTar } from "./EmbeddedTemplate.ts"
import { loadPgliteAssets } from "./PgliteAssets.ts"

declare const self: Worker

export type EmbeddedRequest =
  | { readonly type: "start"; readonly dataDir: string; readonly sharedBuffersMb: number }
  | { readonly type: "stop" }

export type EmbeddedReply =
  | { readonly type: "ready"; readonly port: number }
  | { readonly type: "failed"; readonly message: string }
  | { readonly type: "log"; readonly level: "Warning"; readonly message: string }
  /** This thread's share of the process's memory, every GC_EVERY_MS. */
  | { readonly type: "memory"; readonly wasm: number; readonly jsObjects: number }
  | { readonly type: "stopped" }

const GC_EVERY_MS = 1_000
// The garbage this thread may hold before it collects: at each check, a full collection runs only when its heap
// grew by this much since the last one. A collection every second, whatever the growth, kept this thread at
// 28-32 ms of CPU a second on an idle server, against 20 ms now (the rest is PostgreSQL answering the server's
// background polls), on the core that serves HTTP (bun src/main.ts serve, pinned, /proc task times).
const COLLECT_AFTER_BYTES = 4 * 1024 * 1024

// PGlite runs PostgreSQL in a WebAssembly memory that never shrinks: every page it touches stays resident.
// initdb's 128 MB of shared_buffers was 150 MB of the server's RSS; an embedded database is small, and the
// operating system's page cache still holds its files behind a smaller buffer pool. maintenance_work_mem
// (64 MB by default) would grow the memory for good on the first index build or vacuum of a large table.
const settings = (sharedBuffersMb: number): ReadonlyArray<string> =>
  [`shared_buffers=${sharedBuffersMb}MB`, "maintenance_work_mem=16MB"].flatMap((setting) => ["-c", setting])

const post = (reply: EmbeddedReply) => self.postMessage(reply)

const open = async (dataDir: string, sharedBuffersMb: number) => {
  const assets = await loadPgliteAssets()
  // A new database starts from the template (EmbeddedTemplate.ts), not from initdb.
  const template = dataDir.startsWith("memory://") ? await templateTar() : await layTemplate(dataDir)
  if ("warning" in template && template.warning !== undefined)
    post({ type: "log", level: "Warning", message: template.warning })
  const db = await PGlite.create(dataDir, {
    ...assets,
    startParams: [...PGlite.defaultStartParams, ...settings(sharedBuffersMb)],
    ...("tar" in template ? { loadDataDir: new Blob([template.tar]) } : {})
  })
  // PGlite is one session; the socket server queues queries and keeps a transaction to its connection.
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 })
  await server.start()
  return { db, server }
}

let running: { readonly db: PGlite; readonly server: PGLiteSocketServer } | undefined
let collector: ReturnType<typeof setInterval> | undefined

/** heapUsed after the last full collection. */
let collectedAt = 0

const report = (usage: NodeJS.MemoryUsage) =>
  post({
    type: "memory",
    wasm: running?.db.Module.HEAPU8.buffer.byteLength ?? 0,
    jsObjects: usage.heapUsed - usage.external
  })

/** A full collection when the heap grew by COLLECT_AFTER_BYTES since the last one; the memory report either way. */
const collectIfGrown = () => {
  let usage = process.memoryUsage()
  if (usage.heapUsed - collectedAt >= COLLECT_AFTER_BYTES) {
    Bun.gc(true)
    usage = process.memoryUsage()
    collectedAt = usage.heapUsed
  }
  report(usage)
}

self.onmessage = (event: MessageEvent<EmbeddedRequest>) => {
  const request = event.data
  if (request.type === "start") {
    open(request.dataDir, request.sharedBuffersMb).then(
      (opened) => {
        running = opened
        Bun.gc(true)
        collectedAt = process.memoryUsage().heapUsed
        collector = setInterval(collectIfGrown, GC_EVERY_MS)
        report(process.memoryUsage())
        post({ type: "ready", port: Number(opened.server.getServerConn().split(":").at(-1)) })
      },
      (error: unknown) => post({ type: "failed", message: error instanceof Error ? error.message : String(error) })
    )
    return
  }
  clearInterval(collector)
  const closing = running
  running = undefined
  // A clean shutdown: PGlite checkpoints on close, so the next start has nothing to recover.
  void (async () => {
    await closing?.server.stop()
    await closing?.db.close()
    post({ type: "stopped" })
  })()
}
