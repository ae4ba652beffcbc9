// The IPC messages between `npm run bench:launches` (the service process, test/bench/launches.ts) and
// its world process (test/bench/launchWorld.ts). Times cross the processes as epoch milliseconds.

/** Now, in epoch milliseconds with a fraction: comparable between two processes of one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now()

export type ServiceMessage =
  | {
      readonly kind: "subscriptions"
      readonly id: number
      readonly method: "logsSubscribe" | "accountSubscribe"
    }
  /** An LP withdraw (the vaults keep 5 %) from the index-th webhook pool. */
  | { readonly kind: "withdraw"; readonly id: number; readonly index: number }
  /** Prepare rate × seconds launches, then make them at `rate` a second for `seconds`. */
  | { readonly kind: "launches"; readonly rate: number; readonly seconds: number }
  /** The JSON-RPC calls served so far, by method. */
  | { readonly kind: "calls"; readonly id: number }
  | { readonly kind: "stop" }

export type WorldMessage =
  | {
      readonly kind: "ready"
      readonly url: string
      readonly wsUrl: string
      readonly reference: string
      /** The webhook pools' mints, by index. */
      readonly mints: ReadonlyArray<string>
    }
  | { readonly kind: "subscriptions"; readonly id: number; readonly count: number }
  /** `at`: just before the withdraw's first write to the world (Date.now()). */
  | { readonly kind: "withdrawn"; readonly id: number; readonly at: number }
  | { readonly kind: "prepared"; readonly count: number }
  /** `at`: when the world recorded the launch's create_v2 transaction (epochMs()). */
  | { readonly kind: "launched"; readonly mint: string; readonly at: number }
  | { readonly kind: "launches done"; readonly made: number; readonly elapsedMs: number; readonly cpuMs: number }
  /** `cpuMs`: the world's CPU time since the launches began (0 before). */
  | {
      readonly kind: "calls"
      readonly id: number
      readonly calls: Readonly<Record<string, number>>
      readonly cpuMs: number
    }
