import issuers from "../../domain/issuers.json" with { type: "json" }

// Impersonation: a name or symbol equal, or confusable, to an issuer-verified token's under another mint.
// Confusable: the same after folding case, mapping look-alike characters (Cyrillic and Greek letters,
// digits for letters) and dropping separators and the affixes copies add ("USDC.e", "USDCoin", "wUSDC").

const HOMOGLYPHS: Readonly<Record<string, string>> = {
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  Х: "X",
  У: "Y",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  "0": "O",
  "1": "I",
  "3": "E",
  "5": "S",
  $: "S",
  Ⅰ: "I",
  Ｉ: "I"
}

// Affixes copies add, on the skeleton; a bridged ".e" suffix only with its separator.
const AFFIXES = [/^W(?=[A-Z]{3,})/, /(COIN|TOKEN|OFFICIAL|V2|NEW)$/]
const BRIDGED = /[.\-_ ]E$/

const folded = (text: string): string =>
  [...text.normalize("NFKC").toUpperCase()].map((char) => HOMOGLYPHS[char] ?? char).join("")

/** The skeleton two names are compared by. */
const skeletonOf = (text: string): string =>
  folded(text)
    .replace(/[^A-Z0-9]/g, "")
    .replace(/0/g, "O")

const variantsOf = (text: string): ReadonlySet<string> => {
  const skeleton = skeletonOf(text)
  const variants = new Set([skeleton, skeletonOf(folded(text).replace(BRIDGED, ""))])
  for (const affix of AFFIXES) {
    const stripped = skeleton.replace(affix, "")
    if (stripped.length >= 3) variants.add(stripped)
  }
  return variants
}

interface Verified {
  readonly mint: string
  readonly symbol: string
  readonly issuer: string
  /** Skeletons of its symbol and its name. */
  readonly skeletons: ReadonlyArray<string>
}

const VERIFIED: ReadonlyArray<Verified> = issuers.issuers.map((entry) => ({
  mint: entry.mint,
  symbol: entry.symbol,
  issuer: entry.issuer,
  skeletons: [skeletonOf(entry.symbol), skeletonOf(entry.name)]
}))

/** The verified token whose symbol this mint's name or symbol imitates; null when none (or it is that mint). */
export const impersonatedBy = (mint: string, name: string | null, symbol: string | null) => {
  const candidates = [symbol, name].filter((text): text is string => text !== null && text.trim() !== "")
  for (const verified of VERIFIED) {
    if (verified.mint === mint) return null
    if (candidates.some((text) => verified.skeletons.some((skeleton) => variantsOf(text).has(skeleton)))) {
      return { mint: verified.mint, symbol: verified.symbol, issuer: verified.issuer }
    }
  }
  return null
}
