import { base58 } from "@scure/base"

// Keys look like `rsk_<32 base58 chars of randomness><6 base58 chars of CRC32>`: the prefix lets secret
// scanners find a leaked key, and the checksum lets them (and us, before any database lookup) tell a
// real key from a random string. Only a sha256 of the whole key is stored.
const KEY_PREFIX = "rsk_"
const BODY_LENGTH = 32
const CHECKSUM_LENGTH = 6
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[1-9A-HJ-NP-Za-km-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`)

const checksumOf = (body: string): string => {
  const crc = Bun.hash.crc32(body)
  const bytes = new Uint8Array([crc >>> 24, (crc >>> 16) & 0xff, (crc >>> 8) & 0xff, crc & 0xff])
  return base58.encode(bytes).padStart(CHECKSUM_LENGTH, "1").slice(-CHECKSUM_LENGTH)
}

const randomBody = (): string => {
  // 32 base58 characters carry ~187 bits; draw until the encoding is long enough, then cut.
  let text = ""
  while (text.length < BODY_LENGTH) text += base58.encode(crypto.getRandomValues(new Uint8Array(32)))
  return text.slice(0, BODY_LENGTH)
}

export const generateKey = (): string => {
  const body = randomBody()
  return `${KEY_PREFIX}${body}${checksumOf(body)}`
}

/** Shape and checksum only: a key that passes may still be unknown, revoked or expired. */
export const isWellFormedKey = (key: string): boolean => {
  if (!KEY_PATTERN.test(key)) return false
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH)
  return checksumOf(body) === key.slice(KEY_PREFIX.length + BODY_LENGTH)
}

export const hashKey = (key: string): string => new Bun.CryptoHasher("sha256").update(key).digest("hex")

/** What may be shown of a key after creation: enough to recognise it in a list, useless to an attacker. */
export const displayPrefixOf = (key: string): string => key.slice(0, KEY_PREFIX.length + 8)
