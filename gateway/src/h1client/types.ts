import type { Readable } from "node:stream";
import type { ConnectionOptions } from "node:tls";

export interface H1PoolOptions {
  /** At most this many sockets; further requests wait in FIFO order. */
  readonly maxSockets: number;
  /** An idle keep-alive socket is closed after this (default 4000); a smaller server `Keep-Alive: timeout=N` hint minus 1 s wins. */
  readonly idleTimeoutMs?: number;
  /** Default 10 000. */
  readonly connectTimeoutMs?: number;
  /** Limit on the response head, default 64 KiB. */
  readonly maxHeaderBytes?: number;
  /** Limit for `text()` and `buffer()`, default 64 MiB; `stream()` is not limited. */
  readonly maxBodyBytes?: number;
  /** Extra options for https origins (ca, rejectUnauthorized ...). */
  readonly tls?: ConnectionOptions;
}

export interface H1Request {
  readonly method: string;
  /** Origin-form, e.g. "/mcp?x=1". */
  readonly path: string;
  /** `host` and `content-length` are added by the client; CR, LF and NUL are refused before anything is sent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** Abort destroys the socket and rejects with `signal.reason`, like fetch. */
  readonly signal?: AbortSignal;
  /** From the write until the response head arrives. */
  readonly headersTimeoutMs?: number;
  /** The longest gap between body bytes. */
  readonly bodyTimeoutMs?: number;
}

export interface H1Response {
  readonly status: number;
  /** Lowercased names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The whole body as utf8. */
  text(): Promise<string>;
  buffer(): Promise<Buffer>;
  /** The de-chunked body as it arrives; destroying it aborts the request (the socket is not reused). */
  stream(): Readable;
  /** Discards the body; the socket is reused once the body completes. */
  dump(): void;
}

export interface H1PoolStats {
  readonly sockets: number;
  readonly idle: number;
  readonly queued: number;
}
