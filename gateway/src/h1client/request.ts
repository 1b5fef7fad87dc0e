/**
 * The request serialised for one `socket.write`: request line, `host`, the caller's headers,
 * `content-length`, then the body. Anything that could split the head (CR, LF, NUL) is refused
 * here, before a socket is touched.
 */
import { GatewayError } from "../errors.js";
import type { H1Request } from "./types.js";

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BREAKS_HEAD = /[\r\n\0]/;
const BAD_TARGET = /[\0-\x20\x7f]/;

function invalid(message: string): GatewayError {
  return new GatewayError("TG_ERR_VALIDATION", message);
}

/** Whether the caller's header is one the client writes itself (`host`, `content-length`). */
function isOwnHeader(name: string): boolean {
  return (
    (name.length === 4 || name.length === 14) &&
    /^(?:host|content-length)$/i.test(name)
  );
}

function headerLines(headers: Readonly<Record<string, string>>): string {
  let lines = "";
  for (const name in headers) {
    const value = headers[name] as string;
    if (!TOKEN.test(name))
      throw invalid(
        `the request header name ${JSON.stringify(name)} is not a valid token (CR, LF, NUL, spaces and colons are refused); fix the header name`,
      );
    if (BREAKS_HEAD.test(value))
      throw invalid(
        `the value of request header ${JSON.stringify(name)} contains CR, LF or NUL; remove those characters`,
      );
    if (!isOwnHeader(name)) lines += `${name}: ${value}\r\n`;
  }
  return lines;
}

/** `content-length` for a body, and 0 for a bodiless POST, PUT or PATCH (RFC 9110 8.6). */
function lengthLine(method: string, body: string | Buffer | undefined): string {
  if (body !== undefined)
    return `content-length: ${typeof body === "string" ? Buffer.byteLength(body) : body.length}\r\n`;
  return method === "POST" || method === "PUT" || method === "PATCH"
    ? "content-length: 0\r\n"
    : "";
}

/** Head and body as one string (string body) or one Buffer, in utf8. Throws `TG_ERR_VALIDATION`. */
export function serializeRequest(
  req: H1Request,
  host: string,
): string | Buffer {
  if (!TOKEN.test(req.method))
    throw invalid(
      `the request method ${JSON.stringify(req.method)} is not a valid token`,
    );
  if (!req.path.startsWith("/") || BAD_TARGET.test(req.path)) {
    throw invalid(
      `the request path ${JSON.stringify(req.path)} must start with "/" and contain no spaces or control characters`,
    );
  }
  const { body } = req;
  let head = `${req.method} ${req.path} HTTP/1.1\r\nhost: ${host}\r\n${headerLines(req.headers)}${lengthLine(req.method, body)}`;
  if (typeof body === "string") return `${head}\r\n${body}`;
  head += "\r\n";
  return body === undefined
    ? head
    : Buffer.concat([Buffer.from(head, "utf8"), body]);
}
