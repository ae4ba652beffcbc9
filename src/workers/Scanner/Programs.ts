import { type Address, address, getUtf8Encoder } from "@solana/kit"
import { TOKEN_PROGRAM_ADDRESS } from "@solana-program/token"
import { TOKEN_2022_PROGRAM_ADDRESS } from "@solana-program/token-2022"
import { programDerivedAddress } from "./Pools/Curve.ts"
import { keyBytes } from "./Pools/Bytes.ts"

// The programs a scan recognises, with where each id was read. Ids come from the programs' own npm
// packages (see ../../../shared/DESIGN.md, "The scanner"); the DEX SDKs are web3.js v1 stacks, so their
// constants are copied here rather than depended on.

export { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS }

/** @metaplex-foundation/mpl-token-metadata `src/generated/programs/mplTokenMetadata.ts` MPL_TOKEN_METADATA_PROGRAM_ID. */
export const METAPLEX_METADATA_PROGRAM = address("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")

/** Where burned tokens go: the incinerator (no private key) and the system program (nobody can sign for it). */
export const INCINERATOR = address("1nc1nerator11111111111111111111111111111111")
export const SYSTEM_PROGRAM = address("11111111111111111111111111111111")

type VenueKind = "pool" | "locker"

export interface Venue {
  /** Stable label written into the evidence (`raydium-amm-v4`, `jupiter-lock`, ...). */
  readonly label: string
  readonly kind: VenueKind
  readonly program: Address
  /** Package and file the id was read from. */
  readonly source: string
  /**
   * Seeds of a program-wide authority PDA that owns the vaults of every pool (constant per program).
   * Venues without one own their vaults through a per-pool account that the program owns.
   */
  readonly authoritySeed?: string
}

export const VENUES: ReadonlyArray<Venue> = [
  {
    label: "raydium-amm-v4",
    kind: "pool",
    program: address("675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8"),
    source: "@raydium-io/raydium-sdk-v2 src/common/programId.ts AMM_V4"
  },
  {
    label: "raydium-cpmm",
    kind: "pool",
    program: address("CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C"),
    source: "@raydium-io/raydium-sdk-v2 src/common/programId.ts CREATE_CPMM_POOL_PROGRAM",
    // raydium-cp-swap programs/cp-swap/src/lib.rs AUTH_SEED
    authoritySeed: "vault_and_lp_mint_auth_seed"
  },
  {
    label: "raydium-clmm",
    kind: "pool",
    program: address("CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK"),
    source: "@raydium-io/raydium-sdk-v2 src/common/programId.ts CLMM_PROGRAM_ID"
  },
  {
    label: "orca-whirlpool",
    kind: "pool",
    program: address("whirLbMiicVdio4qvUfM5KAg6Ct8VwpYzGff3uctyCc"),
    source: "@orca-so/whirlpools-client src/generated/programs/whirlpool.ts WHIRLPOOL_PROGRAM_ADDRESS"
  },
  {
    label: "meteora-dlmm",
    kind: "pool",
    program: address("LBUZKhRxPF3XUpBCjp4YzTKgLccjZhTSDM9YuVaPwxo"),
    source: "@meteora-ag/dlmm src/dlmm/constants/index.ts LBCLMM_PROGRAM_IDS"
  },
  {
    label: "meteora-damm-v1",
    kind: "pool",
    program: address("Eo7WjKq67rjJQSZxS6z3YkapzY3eMj6Xy8X5EQVn5UaB"),
    source: "@meteora-ag/dynamic-amm-sdk src/amm/constants.ts PROGRAM_ID"
  },
  {
    // DAMM v1 pools (and lending strategies) deposit into these vaults: the vault account owns the tokens.
    label: "meteora-vault",
    kind: "pool",
    program: address("24Uqj9JCLxUeoC3hGfh5W3s9FM9uCHDS2SG3LYwBpyTi"),
    source: "@meteora-ag/vault-sdk src/vault/constants.ts PROGRAM_ID"
  },
  {
    label: "meteora-damm-v2",
    kind: "pool",
    program: address("cpamdpZCGKUy5JxQXB4dcpGPiikHawvSWAd6mEn1sGG"),
    source: "@meteora-ag/cp-amm-sdk src/constants.ts CP_AMM_PROGRAM_ID",
    // cp-amm programs/cp-amm/src/constants.rs POOL_AUTHORITY_PREFIX
    authoritySeed: "pool_authority"
  },
  {
    label: "meteora-dbc",
    kind: "pool",
    program: address("dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN"),
    source: "@meteora-ag/dynamic-bonding-curve-sdk src/constants.ts DYNAMIC_BONDING_CURVE_PROGRAM_ID",
    // dynamic-bonding-curve programs/dynamic-bonding-curve/src/constants.rs POOL_AUTHORITY_PREFIX
    authoritySeed: "pool_authority"
  },
  {
    label: "raydium-launchlab",
    kind: "pool",
    program: address("LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj"),
    source: "raydium-io/raydium-cpi programs/launch-cpi/src/lib.rs declare_id (Raydium LaunchLab)",
    // the same file's AUTH_SEED: the authority owns every curve's vaults
    authoritySeed: "vault_auth_seed"
  },
  {
    label: "pump-fun",
    kind: "pool",
    program: address("6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P"),
    source: "@pump-fun/pump-sdk src/sdk.ts PUMP_PROGRAM_ID"
  },
  {
    label: "pumpswap",
    kind: "pool",
    program: address("pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA"),
    source: "@pump-fun/pump-swap-sdk src/sdk/pumpAmm.ts PUMP_AMM_PROGRAM_ID"
  },
  {
    label: "raydium-lp-lock",
    kind: "locker",
    program: address("LockrWmn6K5twhz3y9w1dQERbmgSaRkfnTeTKbpofwE"),
    source: "@raydium-io/raydium-sdk-v2 src/common/programId.ts LOCK_CPMM_PROGRAM",
    // raydium-cp-swap lock program LOCK_CP_AUTH_SEED
    authoritySeed: "lock_cp_authority_seed"
  },
  {
    label: "jupiter-lock",
    kind: "locker",
    program: address("LocpQgucEQHbqNABEYvBvwoxCPsSbG91A1QaQhQQqjn"),
    source: "@meteora-ag/met-lock-sdk src/constants.ts LOCK_PROGRAM_ID"
  },
  {
    label: "streamflow",
    kind: "locker",
    program: address("strmRqUCoQUgGUan5YhzUZa6KqdzwX5L6FpUxfmKg5m"),
    source: "@streamflow/stream solana/constants.ts PROGRAM_ID"
  }
]

/** The program of the venue labelled `label` (a programming error when there is none). */
export const venueProgram = (label: string): Address => {
  const venue = VENUES.find((candidate) => candidate.label === label)
  if (venue === undefined) throw new Error(`no venue ${label}`)
  return venue.program
}

/** Raydium AMM v4 owns every vault through one authority derived with a nonce: @raydium-io/raydium-sdk-v2 AMM_V4 authority. */
const RAYDIUM_AMM_V4_AUTHORITY = address("5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1")

/** A venue's program-wide authority PDA (`authoritySeed`), derived as the program derives it. */
export const authorityOf = async (venue: Venue): Promise<Address | undefined> =>
  venue.authoritySeed === undefined
    ? venue.label === "raydium-amm-v4"
      ? RAYDIUM_AMM_V4_AUTHORITY
      : undefined
    : (
        await programDerivedAddress({
          programAddress: venue.program,
          seeds: [getUtf8Encoder().encode(venue.authoritySeed)]
        })
      )[0]

export interface VenueIndex {
  /** Venue of an account owned by this program. */
  readonly byProgram: ReadonlyMap<string, Venue>
  /** Venue whose program-wide authority is this address. */
  readonly byAuthority: ReadonlyMap<string, Venue>
}

let venueIndex: Promise<VenueIndex> | undefined

/** Both lookups, derived once per process. */
export const venueIndexOf = (): Promise<VenueIndex> =>
  (venueIndex ??= (async () => {
    const byAuthority = new Map<string, Venue>()
    for (const venue of VENUES) {
      const authority = await authorityOf(venue)
      if (authority !== undefined) byAuthority.set(authority, venue)
    }
    return { byProgram: new Map(VENUES.map((venue) => [venue.program, venue])), byAuthority }
  })())

/** The Metaplex metadata PDA of a mint: seeds ["metadata", program, mint]. */
export const metaplexMetadataAddress = async (mint: Address): Promise<Address> =>
  (
    await programDerivedAddress({
      programAddress: METAPLEX_METADATA_PROGRAM,
      seeds: [getUtf8Encoder().encode("metadata"), keyBytes(METAPLEX_METADATA_PROGRAM), keyBytes(mint)]
    })
  )[0]
