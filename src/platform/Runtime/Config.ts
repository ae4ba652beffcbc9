import { Config, Option } from "effect"
import { MIN_BUDGET_MB, type MemoryBudget, memoryBudget } from "./MemoryBudget.ts"

/** The memory budget as a setting: MEMORY_LIMIT_MB when set (and valid), else the cgroup's limit or the default. */
export const MemoryBudgetConfig: Config.Config<MemoryBudget> = Config.integer("MEMORY_LIMIT_MB").pipe(
  Config.validate({
    message: `MEMORY_LIMIT_MB must be a whole number of MiB, at least ${MIN_BUDGET_MB}`,
    validation: (mb) => mb >= MIN_BUDGET_MB
  }),
  Config.option,
  Config.map(
    Option.match({
      onNone: () => memoryBudget({}),
      onSome: (mb): MemoryBudget => ({ mb, source: "MEMORY_LIMIT_MB" })
    })
  )
)
