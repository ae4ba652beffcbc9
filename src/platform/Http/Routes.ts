import { HttpApi } from "@effect/platform"
import { RiskApi } from "../../Api.ts"

// Path patterns of every route the server answers, to tell an unknown path (404) from a wrong method (405).
interface RoutePattern {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
}

const compile = (path: string): RegExp =>
  new RegExp(
    `^${path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : escape(segment)))
      .join("/")}/?$`
  )

const escape = (segment: string): string => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const collect = (): ReadonlyArray<RoutePattern> => {
  const routes: Array<RoutePattern> = [
    { method: "GET", path: "/openapi.json", pattern: compile("/openapi.json") },
    { method: "GET", path: "/docs", pattern: compile("/docs") },
    { method: "GET", path: "/metrics", pattern: compile("/metrics") },
    { method: "GET", path: "/schemas/scan-evidence-v2.json", pattern: compile("/schemas/scan-evidence-v2.json") },
    { method: "POST", path: "/mcp", pattern: compile("/mcp") }
  ]
  HttpApi.reflect(RiskApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      routes.push({ method: endpoint.method, path: endpoint.path, pattern: compile(endpoint.path) })
    }
  })
  return routes
}

const routes = collect()

/** Methods the path answers to; empty when no route has this path. */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const methods = new Set<string>()
  for (const route of routes) if (route.pattern.test(path)) methods.add(route.method)
  if (methods.has("GET")) methods.add("HEAD")
  return [...methods]
}

/** The route template a request matched (`/api/risk-check/:address`), for logs and metrics; "unmatched" otherwise. */
const routeOfUncached = (method: string, path: string): string => {
  const wanted = method === "HEAD" ? "GET" : method
  // Literal segments win over parameters, as in the router (`/api/risk-check/batch` before `/:address`).
  const matches = routes.filter((route) => route.method === wanted && route.pattern.test(path))
  matches.sort((a, b) => a.path.split(":").length - b.path.split(":").length)
  return matches[0]?.path ?? "unmatched"
}

// Every request asks; most ask about a few paths. Bounded: forgotten whole when full.
let known = new Map<string, string>()

/** The route template of a request, for metrics and logs ("unmatched" when no route has the path). */
export const routeOf = (method: string, path: string): string => {
  const key = `${method} ${path}`
  let route = known.get(key)
  if (route === undefined) {
    route = routeOfUncached(method, path)
    if (known.size >= 10_000) known = new Map()
    known.set(key, route)
  }
  return route
}
