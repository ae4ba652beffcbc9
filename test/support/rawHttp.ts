import net from "node:net"

/**
 * Bytes written to a server on a raw TCP connection and everything it sends back (as latin1 text),
 * until it closes the connection or `waitMs` passes: for requests no HTTP client would send.
 */
export const rawExchange = (
  url: string,
  bytes: string | Uint8Array,
  waitMs = 3_000
): Promise<{ readonly text: string; readonly closed: boolean }> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    const chunks: Array<Buffer> = []
    let settled = false
    const settle = (closed: boolean) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ text: Buffer.concat(chunks).toString("latin1"), closed })
    }
    const timer = setTimeout(() => settle(false), waitMs)
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => settle(true))
    socket.on("close", () => settle(true))
    socket.write(bytes)
  })

/** A raw HTTP/1.1 response split into its status, headers (lower-case names) and body. */
export const parseResponse = (text: string) => {
  const end = text.indexOf("\r\n\r\n")
  if (end < 0) return undefined
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(":")
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(end + 4) }
}

/** A chunked request body's wire form: the payload in chunks of `size` bytes, then the last chunk. */
export const chunkedBody = (payload: string, size = 16_384): string => {
  let wire = ""
  for (let i = 0; i < payload.length; i += size) {
    const chunk = payload.slice(i, i + size)
    wire += `${Buffer.byteLength(chunk).toString(16)}\r\n${chunk}\r\n`
  }
  return `${wire}0\r\n\r\n`
}
