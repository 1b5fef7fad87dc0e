/**
 * A lean HTTP/1.1 keep-alive client for the gateway's hot paths (tools/call to streamable HTTP
 * servers, chat completions to LLM providers), in place of undici's `Pool`: per request it
 * does one `socket.write`, Buffer-based parsing, one timer and at most one abort listener,
 * and builds a Readable only when the caller asks for `stream()`.
 *
 * - `pool.ts`: sockets, the idle list, the FIFO queue, close/destroy.
 * - `connection.ts`: one socket carrying one exchange at a time, its timers and failures.
 * - `parser.ts` / `head.ts`: response framing per RFC 9112.
 * - `response.ts`: the body, taken once by text(), buffer(), stream() or dump().
 * - `request.ts`: the request serialised and validated before anything is sent.
 */
export { H1Pool } from "./pool.js";
export type { H1PoolOptions, H1Request, H1Response } from "./types.js";
