import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"
import { Data, Duration, Effect, Schedule } from "effect"

// One process owns an embedded data directory (two PGlite instances on one directory corrupt it).
// The owner claims the lock file with its pid in one step, then adds the loopback port of its
// Postgres socket once the database is up. Other processes of the same data directory (a CLI import
// while the server runs) wait for that port and connect to it. Only a dead owner's lock is stale.

interface Owner {
  readonly pid: number
  readonly port: number | null
}

class OwnerStarting extends Data.TaggedError("OwnerStarting")<{ readonly pid: number }> {}

const lockPath = (dataDir: string) => join(dataDir, "risk-api.lock")

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const writeOwner = (fd: number, owner: Owner) => {
  ftruncateSync(fd, 0)
  writeSync(fd, JSON.stringify(owner), 0)
}

const readOwner = (dataDir: string): Owner | "unreadable" | "absent" => {
  try {
    const owner = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Partial<Owner>
    return typeof owner.pid === "number"
      ? { pid: owner.pid, port: typeof owner.port === "number" ? owner.port : null }
      : "unreadable"
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "absent" : "unreadable"
  }
}

/** Create the lock with our pid in it, atomically; false when another lock file exists. */
const tryClaim = (dataDir: string): boolean => {
  let fd: number
  try {
    fd = openSync(lockPath(dataDir), "wx")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
  try {
    writeOwner(fd, { pid: process.pid, port: null })
  } finally {
    closeSync(fd)
  }
  return true
}

// A lock we cannot parse was cut short by a crash between create and write; give a live writer a moment.
const isAbandoned = (dataDir: string): boolean => Date.now() - statSync(lockPath(dataDir)).mtimeMs > 5_000

/** Claim the data directory (undefined) or find the live owner's port, waiting while it starts. */
export const claimOrFindOwner = (
  dataDir: string
): Effect.Effect<{ readonly pid: number; readonly port: number } | undefined> =>
  Effect.suspend(() => {
    mkdirSync(dataDir, { recursive: true })
    if (tryClaim(dataDir)) return Effect.succeed(undefined)
    const owner = readOwner(dataDir)
    if (owner === "absent") return Effect.fail(new OwnerStarting({ pid: 0 }))
    if ((owner === "unreadable" && isAbandoned(dataDir)) || (owner !== "unreadable" && !isAlive(owner.pid))) {
      unlinkSync(lockPath(dataDir))
      return Effect.fail(new OwnerStarting({ pid: 0 })) // retry the claim
    }
    if (owner === "unreadable" || owner.port === null) {
      return Effect.fail(new OwnerStarting({ pid: owner === "unreadable" ? 0 : owner.pid }))
    }
    return Effect.succeed({ pid: owner.pid, port: owner.port })
  }).pipe(Effect.retry({ schedule: Schedule.spaced(Duration.millis(200)), times: 600 }), Effect.orDie)

export const recordOwner = (dataDir: string, port: number): void => {
  const fd = openSync(lockPath(dataDir), "r+")
  try {
    writeOwner(fd, { pid: process.pid, port })
  } finally {
    closeSync(fd)
  }
}

export const releaseOwner = (dataDir: string): void => {
  const owner = readOwner(dataDir)
  if (typeof owner === "object" && owner.pid === process.pid) unlinkSync(lockPath(dataDir))
}
