import type { Random } from "./random.ts"

const PREFIXES = [
  "Moon",
  "Solar",
  "Based",
  "Turbo",
  "Pixel",
  "Quantum",
  "Frosty",
  "Golden",
  "Cosmic",
  "Lucky",
  "Neon",
  "Hyper",
  "Tiny",
  "Mega",
  "Silent",
  "Wild",
  "Degen",
  "Rocket",
  "Lazy",
  "Royal",
  "Jelly",
  "Astro",
  "Magic",
  "Cyber",
  "Sunny",
  "Stormy",
  "Velvet",
  "Bouncy",
  "Sleepy",
  "Chad"
]

const CREATURES = [
  "Otter",
  "Cat",
  "Frog",
  "Pepe",
  "Doge",
  "Whale",
  "Bonk",
  "Panda",
  "Fox",
  "Koala",
  "Wolf",
  "Phoenix",
  "Llama",
  "Hamster",
  "Penguin",
  "Tiger",
  "Goat",
  "Falcon",
  "Dragon",
  "Bear",
  "Capybara",
  "Shrimp",
  "Corgi",
  "Duck",
  "Monkey",
  "Sloth",
  "Beaver",
  "Mole",
  "Crab",
  "Owl"
]

const SUFFIXES = ["", "", "", " Inu", " AI", " Coin", " Token", " Classic", " 2.0", " Protocol"]

export interface TokenName {
  readonly name: string
  readonly symbol: string
}

const symbolOf = (prefix: string, creature: string, random: Random): string => {
  const style = random.int(0, 2)
  if (style === 0) return creature.toUpperCase().slice(0, 6)
  if (style === 1) return `${prefix.slice(0, 1)}${creature.slice(0, 3)}`.toUpperCase()
  return `${prefix.slice(0, 2)}${creature.slice(0, 2)}`.toUpperCase()
}

export const tokenNameOf = (random: Random): TokenName => {
  const prefix = random.pick(PREFIXES)
  const creature = random.pick(CREATURES)
  return { name: `${prefix} ${creature}${random.pick(SUFFIXES)}`, symbol: symbolOf(prefix, creature, random) }
}

// Well-known tokens that scam launches imitate.
export const IMITATED_TOKENS: ReadonlyArray<TokenName> = [
  { name: "USD Coin", symbol: "USDC" },
  { name: "Tether USD", symbol: "USDT" },
  { name: "Jupiter", symbol: "JUP" },
  { name: "Bonk", symbol: "BONK" },
  { name: "dogwifhat", symbol: "WIF" },
  { name: "Wrapped SOL", symbol: "SOL" }
]
