import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"

// One process owns an embedded data directory (two PGlite instances on one directory corrupt it).
// The owner records its pid and the loopback port of its Postgres socket; other processes of the
// same data directory (a CLI import while the server runs) connect to that port instead.

export interface Owner {
  readonly pid: number
  readonly port: number
}

const lockPath = (dataDir: string) => join(dataDir, "risk-api.lock")

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const readOwner = (dataDir: string): Owner | undefined => {
  try {
    const owner = JSON.parse(readFileSync(lockPath(dataDir), "utf8")) as Partial<Owner>
    return typeof owner.pid === "number" && typeof owner.port === "number" ? { pid: owner.pid, port: owner.port } : undefined
  } catch {
    return undefined
  }
}

/** The live owner of the data directory, or undefined after claiming it for this process. */
export const claimOrFindOwner = (dataDir: string): Owner | undefined => {
  mkdirSync(dataDir, { recursive: true })
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      closeSync(openSync(lockPath(dataDir), "wx"))
      return undefined
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      const owner = readOwner(dataDir)
      if (owner !== undefined && owner.pid !== process.pid && isAlive(owner.pid)) return owner
      if (owner === undefined && attempt === 0) {
        // Another process may be between creating the lock and writing its port.
        Bun.sleepSync(500)
        const late = readOwner(dataDir)
        if (late !== undefined && isAlive(late.pid)) return late
      }
      unlinkSync(lockPath(dataDir)) // stale: its process is gone
    }
  }
  throw new Error(`cannot lock ${lockPath(dataDir)}`)
}

export const recordOwner = (dataDir: string, port: number): void => {
  const fd = openSync(lockPath(dataDir), "w")
  writeSync(fd, JSON.stringify({ pid: process.pid, port }))
  closeSync(fd)
}

export const releaseOwner = (dataDir: string): void => {
  if (readOwner(dataDir)?.pid === process.pid) unlinkSync(lockPath(dataDir))
}
