// Dependency rules of the service (checked in CI by `npm run lint:deps`). The folders are the tiers:
//   src/domain      shared vocabulary                     imports nothing of ours
//   src/engines     pure engines (scoring, decisions)      domain (and TokenScoring)
//   src/platform    SQL, observability, the request        domain; Http composes everything below it
//   src/features    one slice per resource or job          domain, engines, platform (never the server)
//   src/workers     background processes (scanner, ...)    domain, engines, platform, features' services
//   src/interfaces  CLI, MCP, the published client         anything (the client: only the contract)
// Dependencies point one way: domain <- engines <- platform/features/workers <- contracts, handlers, Http, interfaces.
const HTTP_SIDE =
  "^src/(Api\\.ts|main\\.ts|platform/Http/|interfaces/|features/[^/]+/(Api|Http|FastPath|Auth|AuthLive|Metered)\\.ts)"

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles, at any length.",
      from: {},
      to: { circular: true }
    },
    {
      name: "domain-imports-nothing-of-ours",
      severity: "error",
      comment: "domain is the shared vocabulary: it imports no other module of the project.",
      from: { path: "^src/domain/" },
      to: { path: "^src/", pathNot: "^src/domain/" }
    },
    {
      name: "token-scoring-imports-only-domain",
      severity: "error",
      comment: "The token scoring engine is pure: it imports only domain.",
      from: { path: "^src/engines/TokenScoring/" },
      to: { path: "^src/", pathNot: "^src/(domain|engines/TokenScoring)/" }
    },
    {
      name: "engines-import-only-domain-and-token-scoring",
      severity: "error",
      comment: "The decision and wallet engines are pure: they build on domain and the token scores, nothing else.",
      from: { path: "^src/engines/(DecisionRules|WalletScoring)/" },
      to: { path: "^src/", pathNot: "^src/(domain|engines/TokenScoring|engines/$1)/" }
    },
    {
      name: "engines-do-no-io",
      severity: "error",
      comment: "The pure engines use no Effect services, SQL, HTTP or platform packages.",
      from: { path: "^src/engines/" },
      to: { path: "node_modules/(@effect/|@electric-sql/|prom-client)" }
    },
    {
      name: "platform-below-features",
      severity: "error",
      comment: "SQL, observability and the request context know no feature, worker or interface; only Http/ composes them.",
      from: { path: "^src/platform/", pathNot: "^src/platform/Http/" },
      to: { path: "^src/(features|workers|interfaces|platform/Http)/" }
    },
    {
      name: "features-do-not-import-workers",
      severity: "error",
      comment: "A feature never reaches into a background worker; workers use features' services, not the other way.",
      from: { path: "^src/(features|engines|domain)/" },
      to: { path: "^src/workers/" }
    },
    {
      name: "services-never-import-http",
      severity: "error",
      comment: "Services, repositories and workers never import contracts, handlers, the HTTP stack or the interfaces.",
      from: { path: "^src/", pathNot: HTTP_SIDE },
      to: { path: HTTP_SIDE }
    },
    {
      name: "only-main-imports-cli",
      severity: "error",
      comment: "The CLI is the top: only the entry point imports it.",
      from: { pathNot: "^src/(main\\.ts|interfaces/Cli/)" },
      to: { path: "^src/interfaces/Cli/" }
    },
    {
      name: "features-do-not-import-the-server",
      severity: "error",
      comment: "platform/Http composes the features; nothing but the server itself, the CLI and main reaches back into it.",
      from: { path: "^src/", pathNot: "^src/(platform/Http|interfaces/Cli)/|^src/main\\.ts" },
      to: { path: "^src/platform/Http/" }
    },
    {
      name: "scans-and-market-do-not-import-each-other",
      comment:
        "Scans and Market are peers (the scanner joins them): the NDJSON machinery is platform/Import, each line parser sits with its owner.",
      severity: "error",
      from: { path: "^src/features/(Scans|Market)/" },
      to: { path: "^src/features/(Scans|Market)/", pathNot: "^src/features/$1/" }
    },
    {
      name: "scans-import-only-watches",
      comment:
        "Scans owns the scan history every other feature reads: it imports no feature but Watches (the watched mints it queues). A need of another feature's data is a tag Scans defines and that feature provides (RetentionFloor).",
      severity: "error",
      from: { path: "^src/features/Scans/" },
      to: { path: "^src/features/", pathNot: "^src/features/(Scans|Watches)/" }
    },
    {
      name: "watches-import-neither-webhooks-nor-scans",
      comment:
        "Webhooks reads watches through Watches/WatchesRepo.ts; Watches checks a notify endpoint through its own tag (NotifyEndpoints), provided by Webhooks.",
      severity: "error",
      from: { path: "^src/features/Watches/" },
      to: { path: "^src/features/(Webhooks|Scans)/" }
    },
    {
      name: "handlers-do-not-import-handlers",
      severity: "error",
      comment: "A feature's handlers share code through services, errors or domain, never through another Http.ts.",
      from: { path: "^src/features/([^/]+)/Http\\.ts$" },
      to: { path: "^src/features/[^/]+/Http\\.ts$", pathNot: "^src/features/$1/Http\\.ts$" }
    },
    {
      name: "client-reaches-only-the-contract",
      severity: "error",
      comment: "The published client (the risk-evidence-api-client package of client/) carries the contract, never the server: no SQL, Bun, HTTP stack or services, even as types.",
      from: { path: "^src/interfaces/Client/" },
      to: {
        path: "^src/(platform/(Http|Sql|Observability)|workers|interfaces/(Cli|Mcp))/|^src/features/[^/]+/(Http|FastPath|AuthLive|Metered|[A-Za-z]+Repo)\\.ts$|^src/features/Accounts/(Accounts|Quota|PublicTraffic)\\.ts$|node_modules/(@effect/(sql|sql-pg|platform-bun|cli|experimental)|@electric-sql|prom-client|bun-types|@modelcontextprotocol)/",
        reachable: true
      }
    },
    {
      name: "no-tests-in-src",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^test/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
    reporterOptions: { text: { highlightFocused: true } }
  }
}
