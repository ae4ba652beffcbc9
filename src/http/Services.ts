import type { Accounts } from "../services/Accounts.ts"
import type { Health } from "../services/Health.ts"
import type { PublicTraffic } from "../services/PublicTraffic.ts"
import type { Quota } from "../services/Quota.ts"
import type { ScanCache } from "../services/ScanCache.ts"
import type { ScanRequests } from "../services/ScanRequests.ts"
import type { WalletRisk } from "../services/WalletRisk.ts"
import type { WalletStore } from "../services/WalletStore.ts"
import type { Watches } from "../services/Watches.ts"

/** Every service the HTTP app needs; the server and the tests provide them. */
export type AppServices = ScanCache | ScanRequests | Accounts | Quota | PublicTraffic | WalletStore | WalletRisk | Watches | Health
