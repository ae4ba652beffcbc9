// Imported first by main.ts, for its effect: a long-running command (serve, scanner, watcher, mcp) whose
// environment does not size the runtime's heap yet starts again, in the same process (execve: same pid,
// same stdio, same CPU affinity), with the options that size it from the memory budget (MemoryBudget.ts).
// JavaScriptCore reads them only when the process starts, so they cannot be set later. An operator's own
// BUN_JSC_ options win: nothing is replaced then.
import { memoryBudget, runtimeHeapEnv } from "./MemoryBudget.ts"

const LONG_RUNNING = new Set(["serve", "scanner", "watcher", "mcp"])

const restartSized = (): void => {
  const command = process.argv[2]
  if (command === undefined || !LONG_RUNNING.has(command)) return
  let budget: ReturnType<typeof memoryBudget>
  try {
    budget = memoryBudget()
  } catch {
    return // a bad MEMORY_LIMIT_MB: the configuration's own check reports it
  }
  const sized = runtimeHeapEnv(budget)
  if (Object.keys(sized).some((key) => process.env[key] !== undefined)) return
  // A compiled binary's argv[1] is its own bundled entry (/$bunfs/…), which it runs by itself.
  const compiled = process.argv[1]?.startsWith("/$bunfs/") === true
  const args = compiled
    ? [process.execPath, ...process.argv.slice(2)]
    : [process.execPath, ...process.execArgv, ...process.argv.slice(1)]
  // Where there is no execve (another platform), the heap stays sized from the machine.
  try {
    process.execve?.(process.execPath, args, { ...process.env, ...sized })
  } catch {}
}

restartSized()
