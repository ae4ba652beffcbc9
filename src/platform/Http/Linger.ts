// Reading a request's body at the edge: measuring one sent without a declared length, and draining the
// rest of one refused for its size before the connection closes (a lingering close).

/**
 * How long and how much of a refused body is read and dropped before its 413 goes out: at most 1 s (and
 * half the request deadline), 64 MiB, and 250 ms without a byte.
 */
export const lingerFor = (requestTimeoutMs: number) =>
  ({ milliseconds: Math.min(1_000, requestTimeoutMs / 2), idleMilliseconds: 250, bytes: 64 * 1024 * 1024 }) as const

/** A body's reader, as Bun's Request gives it. */
export interface BodyReader {
  read(): Promise<
    | { readonly done: true; readonly value?: Uint8Array | undefined }
    | { readonly done: false; readonly value: Uint8Array }
  >
  cancel(reason?: unknown): Promise<void>
}

export type Measured =
  | { readonly _tag: "Measured"; readonly request: Request }
  | { readonly _tag: "TooLarge"; readonly length: number; readonly reader: BodyReader }

/**
 * A body sent without a declared length (chunked), read up to `maxBodyBytes`: over the limit, its length so
 * far and the reader (to drain the rest); within it, the request again with the bytes read and their length.
 * Bun's own limit (maxRequestBodySize) is then never reached, and never answers its empty 413.
 */
export const measuredBody = async (request: Request, maxBodyBytes: number): Promise<Measured> => {
  const reader: BodyReader = request.body!.getReader()
  const chunks: Array<Uint8Array> = []
  let length = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    length += value.byteLength
    if (length > maxBodyBytes) return { _tag: "TooLarge", length, reader }
    chunks.push(value)
  }
  const headers = new Headers(request.headers)
  headers.delete("transfer-encoding")
  headers.set("content-length", String(length))
  return {
    _tag: "Measured",
    request: new Request(request.url, { method: request.method, headers, body: Buffer.concat(chunks) })
  }
}

/**
 * Reads and drops what is left of a body until it ends, the bounds pass, or the client sends nothing for
 * `idleMilliseconds`; then stops reading. A client that sends the rest of its body within the bounds reads
 * the answer; past them (a bigger body, a slower client) it may get a reset instead of the answer.
 */
export const drainBody = async (
  reader: BodyReader | undefined,
  bounds: { readonly milliseconds: number; readonly idleMilliseconds: number; readonly bytes: number }
): Promise<void> => {
  if (reader === undefined) return
  const until = Date.now() + bounds.milliseconds
  let read = 0
  try {
    while (read <= bounds.bytes) {
      const left = until - Date.now()
      if (left <= 0) break
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = new Promise<"waited">((resolve) => {
        timer = setTimeout(() => resolve("waited"), Math.min(left, bounds.idleMilliseconds))
      })
      const next = await Promise.race([reader.read(), waited]).finally(() => clearTimeout(timer))
      if (next === "waited" || next.done) break
      read += next.value.byteLength
    }
  } catch {
    // the client went away: nothing left to drain
  } finally {
    void reader.cancel().catch(() => undefined)
  }
}
