import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto"
import { Option, Redacted } from "effect"

// Signing secrets and signatures in the Standard Webhooks form (https://www.standardwebhooks.com):
// a secret is `whsec_` + base64 of 24 random bytes; the signature of a delivery is
// `v1,` + base64(HMAC-SHA256(secret bytes, `${id}.${timestamp}.${body}`)).

export const newSecret = (): string => `whsec_${randomBytes(24).toString("base64")}`

export const signatureOf = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
    .update(`${id}.${timestamp}.${body}`)
    .digest("base64")}`

/** The webhook-signature header: one signature per secret in use (two while a rotation rolls over). */
export const signatureHeader = (secrets: ReadonlyArray<string>, id: string, timestamp: number, body: string): string =>
  secrets.map((secret) => signatureOf(secret, id, timestamp, body)).join(" ")

// At rest: AES-256-GCM under WEBHOOK_SECRET_KEY when it is set (`enc:v1:<iv>.<ciphertext>.<tag>`), else
// `plain:` (the database's own access control protects it). The worker must recover it to sign, so it is
// never a hash.
export type SecretKey = Option.Option<Redacted.Redacted<string>>

export const sealSecret = (key: SecretKey, secret: string): string => {
  if (Option.isNone(key)) return `plain:${secret}`
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(Redacted.value(key.value), "base64"), iv)
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
  return `enc:v1:${iv.toString("base64")}.${sealed.toString("base64")}.${cipher.getAuthTag().toString("base64")}`
}

/** The secret back; throws (a defect) when it was sealed under another key or the key is missing. */
export const openSecret = (key: SecretKey, stored: string): string => {
  if (stored.startsWith("plain:")) return stored.slice("plain:".length)
  if (Option.isNone(key)) throw new Error("a webhook secret is encrypted but WEBHOOK_SECRET_KEY is not set")
  const [iv, sealed, tag] = stored.slice("enc:v1:".length).split(".")
  const decipher = createDecipheriv(
    "aes-256-gcm",
    Buffer.from(Redacted.value(key.value), "base64"),
    Buffer.from(iv ?? "", "base64")
  )
  decipher.setAuthTag(Buffer.from(tag ?? "", "base64"))
  return Buffer.concat([decipher.update(Buffer.from(sealed ?? "", "base64")), decipher.final()]).toString("utf8")
}
