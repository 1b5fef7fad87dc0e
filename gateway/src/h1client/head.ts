/**
 * The response head (status line and header fields) parsed from its bytes, and the body
 * framing it implies per RFC 9112 section 6.3.
 */
import { ParseError } from "./failures.js";

/** How the body is delimited. */
export const NO_BODY = 0;
export const LENGTH = 1;
export const CHUNKED = 2;
export const UNTIL_CLOSE = 3;
export type Framing =
  typeof NO_BODY | typeof LENGTH | typeof CHUNKED | typeof UNTIL_CLOSE;

export interface ResponseHead {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly framing: Framing;
  /** The Content-Length when framing is LENGTH. */
  readonly length: number;
  /** Whether the connection may carry another request once this response is complete. */
  readonly keepAlive: boolean;
  /** The server's `Keep-Alive: timeout=N` in ms, or undefined. */
  readonly keepAliveHintMs: number | undefined;
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const DIGITS = /^\d{1,15}$/;
const KEEP_ALIVE_TIMEOUT = /(?:^|[,;\s])timeout\s*=\s*(\d+)/i;

/** Parses a head (without its final CRLFCRLF). `isHeadRequest`: the request was HEAD, so no body follows. */
export function parseHead(text: string, isHeadRequest: boolean): ResponseHead {
  let eol = text.indexOf("\r\n");
  if (eol < 0) eol = text.length;
  const match = STATUS_LINE.exec(text.slice(0, eol));
  if (!match) throw new ParseError("malformed response status line");
  const http10 = match[1] === "0";
  const status = Number(match[2]);
  const headers = parseFields(text, eol + 2);
  const { framing, length, faulty } = framingOf(status, headers, isHeadRequest);
  const keepAlive =
    !faulty && framing !== UNTIL_CLOSE && persistent(http10, headers);
  const hint =
    headers["keep-alive"] === undefined
      ? undefined
      : KEEP_ALIVE_TIMEOUT.exec(headers["keep-alive"]);
  const keepAliveHintMs = hint ? Number(hint[1]) * 1000 : undefined;
  return { status, headers, framing, length, keepAlive, keepAliveHintMs };
}

/** RFC 9110 tchar: the characters of a header name. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
  TCHAR[c.charCodeAt(0)] = 1;

/** True when `line` opens with a non-empty token followed by the colon at `colon`. */
function isFieldName(line: string, colon: number): boolean {
  if (colon <= 0) return false;
  for (let i = 0; i < colon; i++) {
    const c = line.charCodeAt(i);
    if (c >= 128 || TCHAR[c] !== 1) return false;
  }
  return true;
}

/** The header fields after the status line (which ends at `from`); every line must be `name: value`. */
function parseFields(text: string, from: number): Record<string, string> {
  const headers: Record<string, string> = {};
  let start = from;
  while (start < text.length) {
    let end = text.indexOf("\r\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end);
    start = end + 2;
    const colon = line.indexOf(":");
    if (!isFieldName(line, colon))
      throw new ParseError(
        `malformed response header line ${JSON.stringify(line.slice(0, 80))}`,
      );
    const key = line.slice(0, colon).toLowerCase();
    if (key === "__proto__") continue;
    const value = line.slice(colon + 1).trim();
    const seen = headers[key];
    headers[key] = seen === undefined ? value : `${seen}, ${value}`;
  }
  return headers;
}

/** RFC 9112 9.3: HTTP/1.1 persists unless `close`; HTTP/1.0 only with `keep-alive` (and never with Transfer-Encoding). */
function persistent(http10: boolean, headers: Record<string, string>): boolean {
  const connection = headers.connection?.toLowerCase();
  if (!http10) return !hasToken(connection, "close");
  return (
    headers["transfer-encoding"] === undefined &&
    hasToken(connection, "keep-alive")
  );
}

function hasToken(list: string | undefined, token: string): boolean {
  if (list === undefined) return false;
  if (list === token) return true;
  return list.split(",").some((t) => t.trim() === token);
}

interface BodyFraming {
  readonly framing: Framing;
  readonly length: number;
  /** Both Transfer-Encoding and Content-Length: legal, but the connection is not trusted after it. */
  readonly faulty: boolean;
}

function framingOf(
  status: number,
  headers: Record<string, string>,
  isHeadRequest: boolean,
): BodyFraming {
  if (isHeadRequest || status === 204 || status === 304 || status < 200)
    return { framing: NO_BODY, length: 0, faulty: false };
  const te = headers["transfer-encoding"];
  const cl = headers["content-length"];
  if (te !== undefined) {
    const last = te
      .slice(te.lastIndexOf(",") + 1)
      .trim()
      .toLowerCase();
    return {
      framing: last === "chunked" ? CHUNKED : UNTIL_CLOSE,
      length: 0,
      faulty: cl !== undefined,
    };
  }
  if (cl !== undefined)
    return { framing: LENGTH, length: contentLength(cl), faulty: false };
  return { framing: UNTIL_CLOSE, length: 0, faulty: false };
}

/** A Content-Length, where repeated fields (joined with ", ") must all agree. */
function contentLength(value: string): number {
  if (DIGITS.test(value)) return Number(value);
  const parts = value.split(",").map((p) => p.trim());
  const first = parts[0] as string;
  if (!DIGITS.test(first) || parts.some((p) => p !== first)) {
    throw new ParseError(
      `invalid Content-Length ${JSON.stringify(value.slice(0, 80))} in the response`,
    );
  }
  return Number(first);
}
