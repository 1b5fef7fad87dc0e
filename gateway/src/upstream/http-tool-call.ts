/**
 * tools/call for streamable HTTP upstreams without the SDK transport. The SDK sends every
 * request through WHATWG fetch and parses the answer through web streams; on this hot path
 * that cost about 0.5 ms of CPU per call on the 2-core bench machine, undici's `Pool.request`
 * still about 0.3 ms more than the lean keep-alive client in h1client/ (measured side by side). Everything else on the session
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

import { H1Pool } from "../h1client/index.js";

export interface HttpTarget {
  readonly url: URL;
  /** The client's configured headers (env references resolved). */
  readonly headers: Readonly<Record<string, string>>;
  /** The auth hook's headers, asked for on every call (tokens rotate); absent: none. */
  readonly authHeaders?: () => Promise<Record<string, string>>;
}

interface RpcAnswer {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: {
    readonly code?: unknown;
    readonly message?: unknown;
    readonly data?: unknown;
  };
}

const BLANK_LINE = /\r?\n\r?\n/g;

/** The `data` of one SSE event (`block` without its blank line): its data lines joined by "\n". */
function eventData(block: string): string {
  let data: string | undefined;
  let start = 0;
  while (start < block.length) {
    let end = block.indexOf("\n", start);
    if (end < 0) end = block.length;
    const lineEnd =
      end > start && block.charCodeAt(end - 1) === 13 ? end - 1 : end;
    if (block.startsWith("data:", start)) {
      const from = block.charCodeAt(start + 5) === 32 ? start + 6 : start + 5;
      const line = block.slice(from, lineEnd);
      data = data === undefined ? line : `${data}\n${line}`;
    }
    start = end + 1;
  }
  return data ?? "";
}

function eventMessage(block: string): RpcAnswer | undefined {
  const data = eventData(block);
  return data === "" ? undefined : (JSON.parse(data) as RpcAnswer);
}

/**
 * The JSON-RPC answer with this id in an SSE body (skipping priming events and notifications).
 * Events are cut at blank lines by indexOf, and only an event whose text holds the id is parsed:
 * this runs on every tools/call.
 */
export function answerFromSse(text: string, id: string): RpcAnswer | undefined {
  const quoted = JSON.stringify(id);
  let start = 0;
  while (start < text.length) {
    BLANK_LINE.lastIndex = start;
    const m = BLANK_LINE.exec(text);
    const end = m ? m.index : text.length;
    const next = m ? m.index + m[0].length : text.length;
    const msg =
      text.lastIndexOf(quoted, end) >= start
        ? eventMessage(text.slice(start, end))
        : undefined;
    if (msg?.id === id) return msg;
    start = next;
  }
  return undefined;
}

function answerOf(
  status: number,
  contentType: string,
  text: string,
  id: string,
): RpcAnswer {
  if (status < 200 || status >= 300)
    throw new Error(
      `the server answered HTTP ${status}: ${text.slice(0, 200)}`,
    );
  const answer = contentType.includes("text/event-stream")
    ? answerFromSse(text, id)
    : (JSON.parse(text) as RpcAnswer);
  if (!answer || answer.id !== id)
    throw new Error(
      "the server's answer did not carry the response to this call",
    );
  return answer;
}

function resultOf(answer: RpcAnswer): CallToolResult {
  if (answer.error) {
    const code =
      typeof answer.error.code === "number"
        ? answer.error.code
        : ErrorCode.InternalError;
    throw new McpError(
      code,
      typeof answer.error.message === "string"
        ? answer.error.message
        : "unknown error",
      answer.error.data,
    );
  }
  if (typeof answer.result !== "object" || answer.result === null)
    throw new Error("the server's answer has no result object");
  return answer.result as CallToolResult;
}

/** Rejects a call that outlives tool_execution_timeout; one per call, so a shared constant would lose the ms. */
function timeoutError(timeoutMs: number): McpError {
  return new McpError(
    ErrorCode.RequestTimeout,
    `Request timed out after ${timeoutMs} ms`,
  );
}

export class HttpToolCaller {
  private readonly pool: H1Pool;
  private readonly path: string;
  private next = 0;
  /** The request headers while no auth hook makes them per call; built on first use (the session id is known by then). */
  private fixed: Record<string, string> | undefined;

  constructor(
    private readonly target: HttpTarget,
    private readonly transport: Pick<
      StreamableHTTPClientTransport,
      "sessionId" | "protocolVersion"
    >,
    maxSockets = 64,
  ) {
    this.pool = new H1Pool(target.url, { maxSockets });
    this.path = `${target.url.pathname}${target.url.search}`;
  }

  private withSession(
    extra: Readonly<Record<string, string>>,
  ): Record<string, string> {
    const h: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...extra,
    };
    const session = this.transport.sessionId;
    if (session) h["mcp-session-id"] = session;
    const version = this.transport.protocolVersion;
    if (version) h["mcp-protocol-version"] = version;
    return h;
  }

  private headers(): Record<string, string> | Promise<Record<string, string>> {
    const hook = this.target.authHeaders;
    if (hook)
      return hook().then((auth) =>
        this.withSession({ ...this.target.headers, ...auth }),
      );
    return (this.fixed ??= this.withSession(this.target.headers));
  }

  async call(
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<CallToolResult> {
    // String ids keep clear of the SDK client's numeric ids on the same session.
    const id = `tg-${++this.next}`;
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: tool, arguments: args },
    });
    // One controller carries both ends of the call: the tool timeout (total, not per read) and the caller leaving.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(timeoutError(timeoutMs)),
      timeoutMs,
    );
    const onCallerAbort = (): void =>
      controller.abort(
        Object.assign(new Error("the call was cancelled by the caller"), {
          name: "AbortError",
        }),
      );
    if (signal?.aborted) onCallerAbort();
    else signal?.addEventListener("abort", onCallerAbort, { once: true });
    try {
      const headers = await this.headers();
      const res = await this.pool.request({
        method: "POST",
        path: this.path,
        headers,
        body,
        signal: controller.signal,
      });
      const text = await res.text();
      return resultOf(
        answerOf(res.status, res.headers["content-type"] ?? "", text, id),
      );
    } catch (err) {
      throw controller.signal.aborted ? controller.signal.reason : err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCallerAbort);
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
