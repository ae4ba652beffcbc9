import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { javascript as scalarBundle } from "../../../node_modules/@effect/platform/dist/esm/internal/httpApiScalar.js"

// /docs: the Scalar reference of the served document, as HttpApiScalar.layer renders it, but
// - offline: Scalar's default fonts come from an outside host; the page uses the system's instead;
// - on the right paths: the document's server is "/" (whatever serves it), which Scalar joins to a path as
//   `//api/...` (a host named "api"); the page names its own origin as the server instead.
const escapeJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

type Json = Record<string, unknown>
const isJson = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

// Scalar's response panels show a media type's named `examples` and otherwise make one up from the schema
// ("string", the integer's minimum); the served document has one `example` per media type, named here.
const namedExamples = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(namedExamples)
  if (!isJson(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    out[key] =
      key === "content" && isJson(value)
        ? Object.fromEntries(
            Object.entries(value).map(([type, media]) => {
              if (!isJson(media) || !("example" in media) || "examples" in media) return [type, namedExamples(media)]
              const { example, ...rest } = media
              return [type, { ...rest, examples: { recorded: { summary: "Recorded", value: example } } }]
            })
          )
        : key === "example" || key === "examples"
          ? value
          : namedExamples(value)
  }
  return out
}

const docsPage = (spec: OpenApi.OpenAPISpec): string => `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeHtml(spec.info.title)}</title>
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">
      ${escapeJson({ ...spec, paths: namedExamples(spec.paths) })}
    </script>
    <script>
      document.getElementById("api-reference").dataset.configuration = JSON.stringify({
        _integration: "html",
        withDefaultFonts: false,
        servers: [{ url: window.location.origin, description: "This server" }]
      })
    </script>
    <script>${scalarBundle}</script>
  </body>
</html>`

/** GET /docs. */
export const DocsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { api } = yield* HttpApi.Api
    const page = docsPage(OpenApi.fromApi(api))
    yield* router.get("/docs", Effect.succeed(HttpServerResponse.html(page)))
  })
)
