import type { Accounts } from "../Accounts/Accounts.ts"
import type { Health } from "../System/Health.ts"
import type { PublicTraffic } from "../Accounts/PublicTraffic.ts"
import type { Quota } from "../Accounts/Quota.ts"
import type { ScanCache } from "../Scans/ScansRepo.ts"
import type { ScanRequests } from "../Scans/ScanRequestsRepo.ts"
import type { WalletRisk } from "../Wallet/WalletRisk.ts"
import type { WalletStore } from "../Wallet/WalletRepo.ts"
import type { Watches } from "../Watches/WatchesRepo.ts"

/** Every service the HTTP app needs; the server and the tests provide them. */
export type AppServices = ScanCache | ScanRequests | Accounts | Quota | PublicTraffic | WalletStore | WalletRisk | Watches | Health
