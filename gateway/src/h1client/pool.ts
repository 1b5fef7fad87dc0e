/**
 * The pool of at most `maxSockets` keep-alive sockets to one origin. A request takes an idle
 * socket (the most recently used), else opens one while under the limit, else waits in a FIFO
 * queue; a socket whose exchange is over goes straight to the next queued request or to the
 * idle list. Nothing is ever retried: a POST may already have run upstream.
 */
import { connect as netConnect, isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { connect as tlsConnect } from "node:tls";

import { GatewayError } from "../errors.js";
import type { ConnectionPool } from "./connection.js";
import { Connection } from "./connection.js";
import type { AbortTarget } from "./exchange.js";
import { Exchange } from "./exchange.js";
import { abortReason, rejected, shuttingDown } from "./failures.js";
import { serializeRequest } from "./request.js";
import type {
  H1PoolOptions,
  H1PoolStats,
  H1Request,
  H1Response,
} from "./types.js";

type Limits = Required<
  Pick<
    H1PoolOptions,
    "idleTimeoutMs" | "connectTimeoutMs" | "maxHeaderBytes" | "maxBodyBytes"
  >
>;

const DEFAULTS: Limits = {
  idleTimeoutMs: 4000,
  connectTimeoutMs: 10_000,
  maxHeaderBytes: 64 * 1024,
  maxBodyBytes: 64 * 1024 * 1024,
};

/** The options the caller set (an explicit `undefined` keeps the default). */
function definedOnly(options: H1PoolOptions): Partial<Limits> {
  return Object.fromEntries(
    Object.entries(options).filter(([, v]) => v !== undefined),
  );
}

/** The pool's workings; `H1Pool` is its public face. */
export class PoolCore implements ConnectionPool, AbortTarget {
  readonly where: string;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxHeaderBytes: number;
  readonly maxBodyBytes: number;
  private readonly hostname: string;
  private readonly port: number;
  /** The `host` header value. */
  private readonly authority: string;
  private readonly secure: boolean;
  private readonly maxSockets: number;
  private readonly tls: ConnectionOptions | undefined;
  private readonly conns = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private queue: Exchange[] = [];
  private closing = false;
  private closeWaiters: (() => void)[] = [];

  constructor(origin: string | URL, options: H1PoolOptions) {
    const url = typeof origin === "string" ? new URL(origin) : origin;
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new GatewayError(
        "TG_ERR_VALIDATION",
        `the origin ${url.href} is not http: or https:; only those are supported`,
      );
    }
    if (!Number.isInteger(options.maxSockets) || options.maxSockets < 1) {
      throw new GatewayError(
        "TG_ERR_VALIDATION",
        `maxSockets must be a positive integer, got ${options.maxSockets}`,
      );
    }
    this.secure = url.protocol === "https:";
    this.hostname = url.hostname.startsWith("[")
      ? url.hostname.slice(1, -1)
      : url.hostname;
    this.port = url.port === "" ? (this.secure ? 443 : 80) : Number(url.port);
    this.authority = url.host;
    this.where = `${url.hostname}:${this.port}`;
    this.maxSockets = options.maxSockets;
    const limits = { ...DEFAULTS, ...definedOnly(options) };
    this.idleTimeoutMs = limits.idleTimeoutMs;
    this.connectTimeoutMs = limits.connectTimeoutMs;
    this.maxHeaderBytes = limits.maxHeaderBytes;
    this.maxBodyBytes = limits.maxBodyBytes;
    this.tls = options.tls;
  }

  /** Sends the request; resolves at the response head. */
  request(req: H1Request): Promise<H1Response> {
    if (this.closing)
      return Promise.reject(
        shuttingDown(this.where, "is closed; no new requests are accepted"),
      );
    const { signal } = req;
    if (signal?.aborted) return rejected(abortReason(signal));
    let data: string | Buffer;
    try {
      data = serializeRequest(req, this.authority);
    } catch (error) {
      return rejected(error);
    }
    const exchange = new Exchange(
      data,
      req.method === "HEAD",
      signal,
      req.headersTimeoutMs,
      req.bodyTimeoutMs,
      this,
    );
    const conn = this.idle.pop();
    if (conn) conn.run(exchange);
    else if (this.conns.size < this.maxSockets) this.open().run(exchange);
    else this.queue.push(exchange);
    return exchange.promise;
  }

  get stats(): H1PoolStats {
    return {
      sockets: this.conns.size,
      idle: this.idle.length,
      queued: this.queue.length,
    };
  }

  /** Accepts no new requests, lets the ones in flight (and queued) finish, closes every socket. */
  close(): Promise<void> {
    this.closing = true;
    for (const conn of this.idle.splice(0)) conn.socket.destroy();
    if (this.conns.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  /** Closes everything now; requests in flight and queued reject with `TG_ERR_SHUTTING_DOWN`. */
  destroy(): void {
    this.closing = true;
    const error = shuttingDown(this.where, "was destroyed");
    for (const exchange of this.queue.splice(0)) {
      exchange.detach();
      exchange.reject(error);
    }
    for (const conn of this.conns) conn.fail(error);
  }

  // ConnectionPool

  release(conn: Connection): void {
    const next = this.queue.shift();
    if (next) conn.run(next);
    else if (this.closing) conn.socket.destroy();
    else {
      this.idle.push(conn);
      conn.startIdle();
    }
  }

  gone(conn: Connection): void {
    this.conns.delete(conn);
    const at = this.idle.indexOf(conn);
    if (at !== -1) this.idle.splice(at, 1);
    const next =
      this.queue.length > 0 && this.conns.size < this.maxSockets
        ? this.queue.shift()
        : undefined;
    if (next) this.open().run(next);
    else if (this.closing && this.conns.size === 0)
      for (const resolve of this.closeWaiters.splice(0)) resolve();
  }

  // AbortTarget: an exchange still in the queue

  abort(exchange: Exchange, reason: unknown): void {
    const at = this.queue.indexOf(exchange);
    if (at !== -1) this.queue.splice(at, 1);
    exchange.detach();
    exchange.reject(reason);
  }

  private open(): Connection {
    const socket = this.secure
      ? tlsConnect({
          ALPNProtocols: ["http/1.1"],
          ...(isIP(this.hostname) === 0 ? { servername: this.hostname } : {}),
          ...this.tls,
          host: this.hostname,
          port: this.port,
        })
      : netConnect({ host: this.hostname, port: this.port });
    const conn = new Connection(this, socket, this.secure);
    this.conns.add(conn);
    return conn;
  }
}

/** A pool of at most `maxSockets` keep-alive HTTP/1.1 sockets to one origin (http: or https:). */
export class H1Pool {
  private readonly core: PoolCore;

  constructor(origin: string | URL, options: H1PoolOptions) {
    this.core = new PoolCore(origin, options);
  }

  /** Sends the request (never retried); resolves at the response head. */
  request(req: H1Request): Promise<H1Response> {
    return this.core.request(req);
  }

  get stats(): H1PoolStats {
    return this.core.stats;
  }

  /** No new requests (they reject with TG_ERR_SHUTTING_DOWN); waits for those in flight, closes idle sockets. */
  close(): Promise<void> {
    return this.core.close();
  }

  /** Closes everything now; requests in flight reject. */
  destroy(): void {
    this.core.destroy();
  }
}
