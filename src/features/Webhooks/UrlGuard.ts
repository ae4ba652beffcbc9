import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Effect } from "effect"
import { MAX_URL_LENGTH } from "./Schemas.ts"

// SSRF guard of webhook URLs: checked when an endpoint is created and again, with a fresh DNS answer, on
// every delivery (Delivery.ts connects only to the addresses checked here). Loopback is allowed only when
// the operator sets WEBHOOK_ALLOW_LOOPBACK; private, link-local, multicast and reserved ranges never.

export interface WebhookTarget {
  readonly url: URL
  /** The host as DNS or an address literal reads it (IPv6 without brackets). */
  readonly host: string
}

const V4_REFUSED: ReadonlyArray<readonly [number, number, string]> = [
  [0x00000000, 8, "a 'this network' address (0.0.0.0/8)"],
  [0x0a000000, 8, "a private address (10.0.0.0/8)"],
  [0x64400000, 10, "a carrier-grade NAT address (100.64.0.0/10)"],
  [0xa9fe0000, 16, "a link-local address (169.254.0.0/16, cloud metadata included)"],
  [0xac100000, 12, "a private address (172.16.0.0/12)"],
  [0xc0000000, 24, "an IETF protocol address (192.0.0.0/24)"],
  [0xc0000200, 24, "a documentation address (192.0.2.0/24)"],
  [0xc0586300, 24, "a 6to4 relay address (192.88.99.0/24)"],
  [0xc0a80000, 16, "a private address (192.168.0.0/16)"],
  [0xc6120000, 15, "a benchmarking address (198.18.0.0/15)"],
  [0xc6336400, 24, "a documentation address (198.51.100.0/24)"],
  [0xcb007100, 24, "a documentation address (203.0.113.0/24)"],
  [0xe0000000, 4, "a multicast address (224.0.0.0/4)"],
  [0xf0000000, 4, "a reserved or broadcast address (240.0.0.0/4)"]
]

const v4Number = (address: string): number => address.split(".").reduce((n, part) => n * 256 + Number(part), 0)

const inV4 = (n: number, base: number, bits: number): boolean =>
  Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits))

const refuseV4 = (address: string, allowLoopback: boolean): string | undefined => {
  const n = v4Number(address)
  if (inV4(n, 0x7f000000, 8))
    return allowLoopback ? undefined : "a loopback address (127.0.0.0/8; WEBHOOK_ALLOW_LOOPBACK is off)"
  return V4_REFUSED.find(([base, bits]) => inV4(n, base, bits))?.[2]
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
const v6Groups = (address: string): ReadonlyArray<number> => {
  const withoutZone = address.split("%")[0] ?? address
  const dotted = withoutZone.match(/(\d+\.\d+\.\d+\.\d+)$/)
  const text =
    dotted === null
      ? withoutZone
      : withoutZone.slice(0, -dotted[1]!.length) +
        (() => {
          const n = v4Number(dotted[1]!)
          return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
        })()
  const [head = "", tail] = text.split("::")
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const v4Of = (high: number, low: number): string => [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".")

const refuseV6 = (address: string, allowLoopback: boolean): string | undefined => {
  const g = v6Groups(address)
  const [g0 = 0, g1 = 0, , , , g5 = 0, g6 = 0, g7 = 0] = g
  const zeroUntil = (n: number) => g.slice(0, n).every((group) => group === 0)
  if (zeroUntil(8)) return "the unspecified address (::)"
  if (zeroUntil(7) && g7 === 1)
    return allowLoopback ? undefined : "a loopback address (::1; WEBHOOK_ALLOW_LOOPBACK is off)"
  // Addresses that carry an IPv4 address are judged by it.
  if (zeroUntil(5) && g5 === 0xffff) return refuseV4(v4Of(g6, g7), allowLoopback)
  if (g0 === 0x64 && g1 === 0xff9b) return refuseV4(v4Of(g6, g7), allowLoopback)
  if (g0 === 0x2002) return refuseV4(v4Of(g1, g[2] ?? 0), allowLoopback)
  if (zeroUntil(6)) return "an IPv4-compatible address (::/96)"
  if ((g0 & 0xfe00) === 0xfc00) return "a unique-local address (fc00::/7)"
  if ((g0 & 0xffc0) === 0xfe80) return "a link-local address (fe80::/10)"
  if ((g0 & 0xffc0) === 0xfec0) return "a site-local address (fec0::/10)"
  if ((g0 & 0xff00) === 0xff00) return "a multicast address (ff00::/8)"
  if (g0 === 0x2001 && g1 === 0x0db8) return "a documentation address (2001:db8::/32)"
  if (g0 === 0x0100 && zeroUntil(4)) return "a discard address (100::/64)"
  return undefined
}

/** Why a webhook may not be delivered to this address, or undefined when it may. */
export const addressRefusal = (address: string, allowLoopback: boolean): string | undefined =>
  isIP(address) === 4
    ? refuseV4(address, allowLoopback)
    : isIP(address) === 6
      ? refuseV6(address, allowLoopback)
      : "not an IP address"

const isLoopbackName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost")

/** The URL's own rules, before DNS: scheme, credentials, length, loopback names and address literals. */
export const targetOf = (
  text: string,
  allowLoopback: boolean
): { readonly target: WebhookTarget } | { readonly refused: string } => {
  if (text.length > MAX_URL_LENGTH) return { refused: `the URL is longer than ${MAX_URL_LENGTH} characters` }
  if (!URL.canParse(text)) return { refused: "not an absolute URL" }
  const url = new URL(text)
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase()
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { refused: `the scheme ${url.protocol} is not https` }
  if (url.username !== "" || url.password !== "")
    return { refused: "the URL carries credentials; put them in the path or a query instead" }
  if (host === "") return { refused: "the URL has no host" }
  const literal = isIP(host) !== 0
  const loopbackName = isLoopbackName(host)
  if (loopbackName && !allowLoopback) return { refused: "localhost is refused (WEBHOOK_ALLOW_LOOPBACK is off)" }
  if (literal) {
    const refusal = addressRefusal(host, allowLoopback)
    if (refusal !== undefined) return { refused: `${host} is ${refusal}` }
  }
  if (url.protocol === "http:") {
    const loopback = loopbackName || (literal && (isIP(host) === 4 ? host.startsWith("127.") : host === "::1"))
    if (!(allowLoopback && loopback))
      return { refused: "http is allowed only to loopback with WEBHOOK_ALLOW_LOOPBACK; use https" }
  }
  return { target: { url, host } }
}

/** Resolved addresses of a target, every one allowed; otherwise why not. Literals resolve to themselves. */
export const resolveTarget = (target: WebhookTarget, allowLoopback: boolean) =>
  Effect.gen(function* () {
    if (isIP(target.host) !== 0) return { addresses: [{ address: target.host, family: isIP(target.host) }] } as const
    // localhost is loopback whatever the resolver says.
    if (isLoopbackName(target.host)) return { addresses: [{ address: "127.0.0.1", family: 4 }] } as const
    const answer = yield* Effect.tryPromise(() => lookup(target.host, { all: true, verbatim: true })).pipe(
      Effect.timeout("2 seconds"),
      Effect.either
    )
    if (answer._tag === "Left" || answer.right.length === 0)
      return { refused: `${target.host} does not resolve` } as const
    for (const { address } of answer.right) {
      const refusal = addressRefusal(address, allowLoopback)
      if (refusal !== undefined) return { refused: `${target.host} resolves to ${address}, ${refusal}` } as const
    }
    return { addresses: answer.right } as const
  })
