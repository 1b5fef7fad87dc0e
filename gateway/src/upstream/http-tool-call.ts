/**
 * tools/call for streamable HTTP upstreams without the SDK transport. The SDK sends every
 * request through WHATWG fetch and parses the answer through web streams; on this hot path
 * that costs about 0.5 ms of CPU per call, against about 0.1 ms for undici's `Pool.request`
 * with the body read as text (measured side by side). Everything else on the session
 * (initialize, listings, pings, notifications) stays on the SDK client; this only borrows
 * the session id and protocol version it negotiated.
 *
 * Failures are thrown in the shapes the SDK uses, so the connection words them the same way:
 * `McpError(RequestTimeout)` for the tool timeout, an AbortError for the caller going away,
 * `McpError(<code>)` for a JSON-RPC error answer, and a plain Error for anything else. A call
 * is never retried here: the server may have run the tool already.
 */
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";

export interface HttpTarget {
  readonly url: URL;
  /** Static headers plus the auth hook's, resolved per call (tokens rotate). */
  readonly headers: () => Promise<Record<string, string>>;
}

interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown };
}

/** The JSON-RPC answer with this id in an SSE body (skipping priming events and notifications). */
export function answerFromSse(text: string, id: string): RpcAnswer | undefined {
  for (const block of text.split(/\r?\n\r?\n/)) {
    let data = "";
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
    }
    if (data === "" || !data.includes(id)) continue;
    const msg = JSON.parse(data) as RpcAnswer;
    if (msg.id === id) return msg;
  }
  return undefined;
}

function answerOf(status: number, contentType: string, text: string, id: string): RpcAnswer {
  if (status < 200 || status >= 300) throw new Error(`the server answered HTTP ${status}: ${text.slice(0, 200)}`);
  const answer = contentType.includes("text/event-stream") ? answerFromSse(text, id) : (JSON.parse(text) as RpcAnswer);
  if (!answer || answer.id !== id) throw new Error("the server's answer did not carry the response to this call");
  return answer;
}

function resultOf(answer: RpcAnswer): CallToolResult {
  if (answer.error) {
    const code = typeof answer.error.code === "number" ? answer.error.code : ErrorCode.InternalError;
    throw new McpError(code, typeof answer.error.message === "string" ? answer.error.message : "unknown error", answer.error.data);
  }
  if (typeof answer.result !== "object" || answer.result === null) throw new Error("the server's answer has no result object");
  return answer.result as CallToolResult;
}

export class HttpToolCaller {
  private readonly pool: Pool;
  private readonly path: string;
  private next = 0;

  constructor(
    private readonly target: HttpTarget,
    private readonly transport: Pick<StreamableHTTPClientTransport, "sessionId" | "protocolVersion">,
    connections = 64,
  ) {
    this.pool = new Pool(target.url.origin, { connections, pipelining: 1 });
    this.path = `${target.url.pathname}${target.url.search}`;
  }

  private async headers(): Promise<Record<string, string>> {
    const h: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(await this.target.headers()),
    };
    const session = this.transport.sessionId;
    if (session) h["mcp-session-id"] = session;
    const version = this.transport.protocolVersion;
    if (version) h["mcp-protocol-version"] = version;
    return h;
  }

  async call(tool: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<CallToolResult> {
    // String ids keep clear of the SDK client's numeric ids on the same session.
    const id = `tg-${++this.next}`;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: tool, arguments: args } });
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const res = await this.pool.request({ path: this.path, method: "POST", headers: await this.headers(), body, signal: combined });
      const text = await res.body.text();
      const contentType = String(res.headers["content-type"] ?? "");
      return resultOf(answerOf(res.statusCode, contentType, text, id));
    } catch (err) {
      if (timeout.aborted && !signal?.aborted) throw new McpError(ErrorCode.RequestTimeout, `Request timed out after ${timeoutMs} ms`);
      if (signal?.aborted) throw Object.assign(new Error("the call was cancelled by the caller"), { name: "AbortError" });
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
