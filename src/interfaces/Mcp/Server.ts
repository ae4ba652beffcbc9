import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  type CallToolResult,
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import { VERSION } from "../../features/System/Version.ts"
import { requestOf, tools } from "./Tools.ts"

/** How a tool call reaches the service: the HTTP app itself, in process or over the network. */
export type Upstream = (request: Request) => Promise<Response>

export interface McpSettings {
  readonly upstream: Upstream
  /** Sent with every tool call: the caller's `authorization` (and `x-api-key`, `x-request-id`) headers. */
  readonly headers: Readonly<Record<string, string>>
  /** How a caller of this transport sends a key: said instead of the HTTP header when a call is 401. */
  readonly keyHint: string
}

/** The key hint for `risk-api mcp` on stdio: the key comes from the server process's environment. */
export const STDIO_KEY_HINT =
  "set RISK_API_KEY in the environment of the `risk-api mcp` process (your MCP client's server config)."
/** The key hint for Streamable HTTP at /mcp: the key travels on the MCP request itself. */
export const HTTP_KEY_HINT = "send `Authorization: Bearer <key>` with the MCP request to /mcp."

const byName = new Map(tools.map((tool) => [tool.name, tool]))

const listed = tools.map(({ description, inputSchema, name, outputSchema, title }) => ({
  name,
  title,
  description,
  inputSchema,
  outputSchema,
  annotations: { title, readOnlyHint: name !== "set_watch", openWorldHint: false }
}))

interface Envelope {
  readonly error: { readonly code: string; readonly message: string; readonly requestId: string }
}

const isEnvelope = (body: unknown): body is Envelope =>
  typeof body === "object" &&
  body !== null &&
  "error" in body &&
  typeof body.error === "object" &&
  body.error !== null &&
  "code" in body.error

// A refusal is a tool error the model can act on: the envelope's code, message and request id, as text (a
// structured body would be checked against the success schema by clients).
// A 401's message tells an HTTP caller which header to send; an MCP caller is told what its transport needs.
const failure = (status: number, answered: unknown, requestId: string | null, keyHint: string): CallToolResult => {
  const body =
    isEnvelope(answered) && status === 401
      ? { ...answered, error: { ...answered.error, message: `A valid API key is required: ${keyHint}` } }
      : answered
  const text = isEnvelope(body)
    ? `Failed with ${body.error.code} (HTTP ${status}): ${body.error.message} Request id ${body.error.requestId}.`
    : `Failed with HTTP ${status}${requestId === null ? "" : ` (request id ${requestId})`}.`
  return {
    isError: true,
    content: [
      { type: "text", text },
      { type: "text", text: JSON.stringify(body) }
    ]
  }
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * An MCP server whose tools are the service's routes: each call is the HTTP request of its route, sent to
 * `upstream` with the caller's key, so authentication, scopes, rate limits, quota and charges are the
 * route's own. The low-level SDK server, because the input schemas are JSON Schema from Effect schemas.
 */
export const makeMcpServer = (settings: McpSettings): Server => {
  const server = new Server(
    { name: "risk-evidence-api", title: "Solana Risk Evidence API", version: VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        "Cached Solana token and wallet risk evidence. risk_check and risk_check_batch are free and need no " +
        "key; the other tools need an API key with the scope their description names and are charged as over HTTP. " +
        "Nothing scans live and nothing executes a trade."
    }
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
  server.setRequestHandler(CallToolRequestSchema, async ({ params }): Promise<CallToolResult> => {
    const tool = byName.get(params.name)
    if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${params.name}.`)
    const response = await settings.upstream(
      requestOf(tool, params.arguments ?? {}, "http://mcp.internal", settings.headers)
    )
    const text = await response.text()
    const body = parsed(text)
    if (!response.ok) return failure(response.status, body, response.headers.get("x-request-id"), settings.keyHint)
    return {
      content: [{ type: "text", text: tool.summarize(body) }],
      structuredContent: body as Record<string, unknown>
    }
  })
  return server
}
