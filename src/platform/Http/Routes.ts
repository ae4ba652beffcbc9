import { HttpApi } from "@effect/platform"
import { Option } from "effect"
import { RiskApi } from "../../Api.ts"

// Path patterns of every route the server answers, to tell an unknown path (404) from a wrong method (405).
interface RoutePattern {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
  /** The same path with a parameter left empty before another segment (`/webhooks/x/deliveries//redeliver`). */
  readonly emptied: RegExp
  /** Whether the route reads a body (a payload in the contract); one that does not never has it read. */
  readonly takesBody: boolean
}

// `emptyBeforeLast`: a parameter followed by another segment may be empty (to tell that case apart).
const compile = (path: string, emptyBeforeLast = false): RegExp => {
  const segments = path.split("/")
  const last = segments.length - 1
  return new RegExp(
    `^${segments
      .map((segment, i) =>
        segment.startsWith(":") ? (emptyBeforeLast && i < last ? "[^/]*" : "[^/]+") : escapeRegExp(segment)
      )
      .join("/")}/?$`
  )
}

const routePattern = (method: string, path: string, takesBody = method !== "GET"): RoutePattern => ({
  method,
  path,
  takesBody,
  pattern: compile(path),
  emptied: compile(path, true)
})

const escapeRegExp = (segment: string): string => segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const collect = (): ReadonlyArray<RoutePattern> => {
  const routes: Array<RoutePattern> = [
    routePattern("GET", "/openapi.json"),
    routePattern("GET", "/docs"),
    routePattern("GET", "/metrics"),
    routePattern("GET", "/schemas/scan-evidence-v2.json"),
    routePattern("POST", "/mcp")
  ]
  HttpApi.reflect(RiskApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      routes.push(
        routePattern(endpoint.method, endpoint.path, Option.isSome(endpoint.payloadSchema as Option.Option<unknown>))
      )
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

/**
 * The route a path would match but for a parameter left empty before another segment (an empty segment is
 * no route: the router answers 404, which such an operation does not document); undefined otherwise.
 */
export const routeWithEmptyParameter = (method: string, path: string): string | undefined => {
  const wanted = method === "HEAD" ? "GET" : method
  return routes.find((route) => route.method === wanted && !route.pattern.test(path) && route.emptied.test(path))?.path
}

// The route templates that read a body.
const withBody = new Set(routes.filter((route) => route.takesBody).map((route) => `${route.method} ${route.path}`))

/** Whether a request's route reads a body; a path no route takes is treated as one that does. */
export const routeTakesBody = (method: string, path: string): boolean => {
  const route = routeOf(method, path)
  return route === "unmatched" || withBody.has(`${method} ${route}`)
}
