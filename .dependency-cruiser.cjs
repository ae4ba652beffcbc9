// Dependency rules of the service (checked in CI by `npm run lint:deps`). Dependencies point one way:
// Domain <- pure engines <- services and repositories <- contracts, handlers, Http, Cli.
const HTTP_SIDE = "^src/(Api\\.ts|Http/|Mcp/|Client/|Cli/|main\\.ts|[^/]+/(Api|Http|FastPath|Auth|AuthLive|Metered)\\.ts)"

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
      comment: "Domain is the shared vocabulary: it imports no other module of the project.",
      from: { path: "^src/Domain/" },
      to: { path: "^src/", pathNot: "^src/Domain/" }
    },
    {
      name: "scoring-imports-only-domain",
      severity: "error",
      comment: "The token scoring engine is pure: it imports only Domain.",
      from: { path: "^src/Scoring/" },
      to: { path: "^src/", pathNot: "^src/(Domain|Scoring)/" }
    },
    {
      name: "engines-import-only-domain-and-scoring",
      severity: "error",
      comment: "The decision and wallet engines are pure: they build on Domain and the token scores, nothing else.",
      from: { path: "^src/(Decision|WalletScoring)/" },
      to: { path: "^src/", pathNot: "^src/(Domain|Scoring|$1)/" }
    },
    {
      name: "engines-do-no-io",
      severity: "error",
      comment: "The pure engines use no Effect services, SQL, HTTP or platform packages.",
      from: { path: "^src/(Scoring|Decision|WalletScoring)/" },
      to: { path: "node_modules/(@effect/|@electric-sql/|prom-client)" }
    },
    {
      name: "services-never-import-http",
      severity: "error",
      comment: "Services and repositories never import contracts, handlers, the HTTP stack or the CLI.",
      from: { path: "^src/", pathNot: HTTP_SIDE },
      to: { path: HTTP_SIDE }
    },
    {
      name: "only-main-imports-cli",
      severity: "error",
      comment: "The CLI is the top: only the entry point imports it.",
      from: { pathNot: "^src/(main\\.ts|Cli/)" },
      to: { path: "^src/Cli/" }
    },
    {
      name: "features-do-not-import-the-server",
      severity: "error",
      comment: "Http/ composes the features; a feature never reaches back into it.",
      from: { path: "^src/", pathNot: "^src/(Http|Cli)/|^src/main\\.ts" },
      to: { path: "^src/Http/" }
    },
    {
      name: "handlers-do-not-import-handlers",
      severity: "error",
      comment: "A feature's handlers share code through services, errors or Domain, never through another Http.ts.",
      from: { path: "^src/[^/]+/Http\\.ts$" },
      to: { path: "^src/[^/]+/Http\\.ts$" }
    },
    {
      name: "client-reaches-only-the-contract",
      severity: "error",
      comment: "The published client (the risk-evidence-api-client package of client/) carries the contract, never the server: no SQL, Bun, HTTP stack or services, even as types.",
      from: { path: "^src/Client/" },
      to: {
        path: "^src/(Http|Cli|Mcp|Sql|Observability|Scanner)/|^src/[^/]+/(Http|FastPath|AuthLive|Metered|[A-Za-z]+Repo)\\.ts$|^src/Accounts/(Accounts|Quota|PublicTraffic)\\.ts$|node_modules/(@effect/(sql|sql-pg|platform-bun|cli|experimental)|@electric-sql|prom-client|bun-types|@modelcontextprotocol)/",
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
