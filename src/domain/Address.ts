import { base58 } from "@scure/base"
import { Effect, Schema } from "effect"
import { InvalidAddress } from "./Errors.ts"

// A Solana address is base58 that decodes to exactly 32 bytes; a pattern alone accepts impostors.
export const isSolanaAddress = (value: string): boolean => {
  if (value.length < 32 || value.length > 44) return false
  try {
    return base58.decode(value).length === 32
  } catch {
    return false
  }
}

/** An address as /openapi.json documents it: base58 of 32 bytes is 32 to 44 characters. */
export const ADDRESS_JSON_SCHEMA = {
  type: "string",
  pattern: "^[1-9A-HJ-NP-Za-km-z]{32,44}$",
  minLength: 32,
  maxLength: 44
} as const

/**
 * An address field of a request: any string on input (its handler answers 400 invalid_address for one that
 * is not an address), documented as an address.
 */
export const AddressInput = (description: string) =>
  Schema.String.annotations({ description, jsonSchema: ADDRESS_JSON_SCHEMA })

export const Address = Schema.String.pipe(
  Schema.filter(
    (value) => isSolanaAddress(value) || `not a Solana address (base58 of 32 bytes): ${JSON.stringify(value)}`
  ),
  Schema.brand("Address")
).annotations({
  identifier: "Address",
  title: "Solana address",
  description: "Base58 string that decodes to exactly 32 bytes (a mint or wallet public key).",
  examples: ["EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" as never],
  jsonSchema: ADDRESS_JSON_SCHEMA
})
export type Address = typeof Address.Type

export const invalidAddressMessage = (address: string): string =>
  `${JSON.stringify(address.length > 64 ? `${address.slice(0, 64)}…` : address)} is not a Solana address (base58 of 32 bytes).`

/** A path or body field as an Address, or 400 invalid_address naming the value. */
export const parseAddress = (address: string): Effect.Effect<Address, InvalidAddress> =>
  isSolanaAddress(address)
    ? Effect.succeed(address as Address)
    : Effect.fail(new InvalidAddress({ message: invalidAddressMessage(address) }))
