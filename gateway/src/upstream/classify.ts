/**
 * Transient or permanent, SPEC 8.2. Transient errors are retried with backoff; permanent
 * ones put the client into `error` at once.
 *
 * The checks run from the most to the least specific: an HTTP status carried by the SDK's
 * transport errors, then Node/undici error codes anywhere on the `cause` chain, then the
 * wording of the message. Decisions where SPEC is silent:
 * - the SDK's request timeout (`McpError` -32001) is a connection timeout: transient; a
 *   caller's abort or an explicit "context deadline exceeded/cancelled" is permanent;
 * - a closed connection (`McpError` -32000, a stdio child that exited) is transient;
 * - other HTTP 4xx are permanent, other 5xx transient;
 * - anything unrecognised is transient: the retry budget is bounded anyway, and giving up
 *   on a server that would have come back is the worse mistake.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export type ErrorClass = "transient" | "permanent";

/** A problem with the client's own configuration (bad URL, missing variable): never retried. */
export class ClientConfigError extends Error {
  override readonly name = "ClientConfigError";
}

const PERMANENT_STATUS = new Set([400, 401, 403, 405, 422]);
const TRANSIENT_STATUS = new Set([429, 500, 502, 503, 504]);

const TRANSIENT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "EIO",
  "EAGAIN",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
]);
const PERMANENT_CODES = new Set([
  "ENOENT",
  "EACCES",
  "EPERM",
  "ENOEXEC",
  "ENOTDIR",
  "ERR_INVALID_URL",
  "ABORT_ERR",
]);

const PERMANENT_TEXT =
  /context (deadline exceeded|cancell?ed)|unauthori[sz]ed|forbidden|authori[sz]ation denied|invalid (auth|credentials|configuration|config)|permission denied|command not found|no such file|not found/i;
const TRANSIENT_TEXT =
  /time(d)? ?out|refused|unreachable|temporar|unavailable|broken pipe|reset|socket hang up|fetch failed|i\/o|connection closed/i;

interface ErrorLike {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly status?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

/** The error, its causes and the members of aggregate errors, breadth first, bounded. */
function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (typeof e !== "object" || e === null) continue;
    const like = e as ErrorLike;
    out.push(like);
    if (like.cause !== undefined) queue.push(like.cause);
    if (Array.isArray(like.errors)) queue.push(...(like.errors as unknown[]));
  }
  return out;
}

const isStatus = (n: unknown): n is number =>
  typeof n === "number" && n >= 100 && n < 600;

function httpStatus(e: ErrorLike): number | undefined {
  // StreamableHTTPError and SseError keep the status in `code`; fetch-style errors in `status`.
  if (isStatus(e.status)) return e.status;
  if (!(e instanceof McpError) && isStatus(e.code)) return e.code;
  const m =
    typeof e.message === "string"
      ? /\bHTTP (\d{3})\b|status code \(?(\d{3})\)?/.exec(e.message)
      : null;
  const s = m?.[1] ?? m?.[2];
  return s === undefined ? undefined : Number(s);
}

function byStatus(status: number): ErrorClass | undefined {
  if (PERMANENT_STATUS.has(status) || TRANSIENT_STATUS.has(status))
    return PERMANENT_STATUS.has(status) ? "permanent" : "transient";
  if (status >= 400 && status < 500) return "permanent";
  if (status >= 500) return "transient";
  return undefined;
}

/** Whether `err` is an SDK McpError with this JSON-RPC code. */
export function isMcpError(err: unknown, code: ErrorCode): boolean {
  return err instanceof McpError && err.code === (code as number);
}

const PERMANENT_NAMES = new Set([
  "AbortError",
  "UnauthorizedError",
  "ClientConfigError",
]);

function byKind(e: ErrorLike): ErrorClass | undefined {
  if (e instanceof ClientConfigError) return "permanent";
  if (
    isMcpError(e, ErrorCode.RequestTimeout) ||
    isMcpError(e, ErrorCode.ConnectionClosed)
  )
    return "transient";
  const name = typeof e.name === "string" ? e.name : "";
  if (PERMANENT_NAMES.has(name)) return "permanent";
  return typeof e.code === "string" ? byCode(name, e.code) : undefined;
}

function byCode(name: string, code: string): ErrorClass | undefined {
  if (name === "GatewayError" && code.startsWith("TG_ERR_CONFIG"))
    return "permanent";
  if (PERMANENT_CODES.has(code)) return "permanent";
  return TRANSIENT_CODES.has(code) ? "transient" : undefined;
}

function byText(e: ErrorLike): ErrorClass | undefined {
  const msg = typeof e.message === "string" ? e.message : "";
  if (PERMANENT_TEXT.test(msg)) return "permanent";
  if (TRANSIENT_TEXT.test(msg)) return "transient";
  return undefined;
}

/** Whether a failure to connect, initialise, list tools or reach a server is worth retrying. */
export function classifyError(err: unknown): ErrorClass {
  const links = chain(err);
  for (const e of links) {
    const status = httpStatus(e);
    const cls = status === undefined ? undefined : byStatus(status);
    if (cls) return cls;
  }
  for (const e of links) {
    const cls = byKind(e);
    if (cls) return cls;
  }
  for (const e of links) {
    const cls = byText(e);
    if (cls) return cls;
  }
  return "transient";
}
