import { zstdCompressSync, zstdDecompressSync } from "node:zlib"

// How a scan's v2 document is stored (sql/0020): its JSON text compressed with zstd (level 3, the library's
// default) in scans.evidence_v2_zstd. A scanner's document is about 11 KB of JSON, mostly base58 addresses
// that no compressor shrinks much: about 4.3 KB so, against 6.9 KB as jsonb under PostgreSQL's pglz, which it
// was before. Nothing reads it in SQL; ScansRepo.latestDocument decompresses it in the server.

/** The column's value of a document's JSON text, as base64 (the insert decodes it; both databases take text). */
export const compressDocument = (json: string): string => zstdCompressSync(Buffer.from(json, "utf8")).toString("base64")

/** The JSON text of a stored document (bytea: a Buffer from PostgreSQL, a Uint8Array from PGlite). */
export const documentJson = (stored: Uint8Array): string => zstdDecompressSync(stored).toString("utf8")
