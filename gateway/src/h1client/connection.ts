/**
 * One keep-alive socket. Its listeners are attached once, for the socket's whole life (so an
 * 'error' never goes unhandled), and it carries one exchange at a time: write the request
 * in one `socket.write`, parse the response, hand the socket back to the pool once the
 * response is complete and the request fully written. One deadline (deadlines.ts) serves, in turn, the
 * connect, headers, body and idle timeouts.
 */
import type { Socket } from "node:net";

import type { Expiring } from "./deadlines.js";
import { deadlineIn, unwatch, watch } from "./deadlines.js";
import type { AbortTarget, Exchange } from "./exchange.js";
import {
  closedEarly,
  ParseError,
  timeoutError,
  upstreamError,
} from "./failures.js";
import type { ResponseHead } from "./head.js";
import { NO_BODY } from "./head.js";
import type { ParserEvents } from "./parser.js";
import { ResponseParser } from "./parser.js";
import type { BodySource } from "./response.js";
import { Response } from "./response.js";

/** The pool as a connection sees it. */
export interface ConnectionPool {
  /** `host:port`, for messages. */
  readonly where: string;
  readonly connectTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly maxHeaderBytes: number;
  readonly maxBodyBytes: number;
  /** The exchange is over and the socket can carry another. */
  release(conn: Connection): void;
  /** The socket closed. */
  gone(conn: Connection): void;
}

const T_NONE = 0;
const T_CONNECT = 1;
const T_HEADERS = 2;
const T_BODY = 3;
const T_IDLE = 4;
const TIMER_NAMES = ["", "connect", "headers", "body", "idle"] as const;

export class Connection
  implements ParserEvents, BodySource, AbortTarget, Expiring
{
  private readonly parser: ResponseParser;
  private exchange: Exchange | undefined;
  private response: Response | undefined;
  private connected = false;
  private reusable = true;
  private written = false;
  private completed = false;
  private idleMs: number;
  /** When the running timeout (timerKind) is due, 0 when none runs; checked by deadlines.ts. */
  deadline = 0;
  private timerKind = T_NONE;
  private timerMs = 0;

  constructor(
    private readonly pool: ConnectionPool,
    readonly socket: Socket,
    secure: boolean,
  ) {
    this.parser = new ResponseParser(this, pool.maxHeaderBytes);
    this.idleMs = pool.idleTimeoutMs;
    socket.setNoDelay(true);
    socket.on(secure ? "secureConnect" : "connect", () => this.onConnect());
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.onEnd());
    socket.on("error", (error: Error) => this.onError(error));
    socket.on("close", () => this.onClose());
    watch(this);
    this.startTimer(T_CONNECT, pool.connectTimeoutMs);
  }

  /** Sends the exchange's request on this socket. */
  run(exchange: Exchange): void {
    this.exchange = exchange;
    exchange.owner = this;
    this.written = false;
    this.completed = false;
    this.parser.start(exchange.isHead);
    this.socket.write(exchange.data, this.onWritten);
    if (this.connected) this.startHeadersTimer(exchange);
  }

  /** Waits for the next exchange, closing the socket after the idle timeout. */
  startIdle(): void {
    if (this.idleMs > 0) this.startTimer(T_IDLE, this.idleMs);
    else this.socket.destroy();
  }

  /** Fails the exchange in flight (if any) with `error` and closes the socket. */
  fail(error: unknown): void {
    const response = this.response;
    const exchange = this.teardown();
    if (response) response.fail(error);
    else exchange?.reject(error);
  }

  abort(exchange: Exchange, reason: unknown): void {
    if (exchange === this.exchange) this.fail(reason);
  }

  // ParserEvents

  onHead(head: ResponseHead): void {
    const exchange = this.exchange as Exchange;
    this.reusable = head.keepAlive;
    if (head.keepAliveHintMs !== undefined)
      this.idleMs = Math.min(
        this.pool.idleTimeoutMs,
        head.keepAliveHintMs - 1000,
      );
    const response = new Response(
      head.status,
      head.headers,
      this,
      this.pool.maxBodyBytes,
      this.pool.where,
    );
    this.response = response;
    if (exchange.bodyTimeoutMs && head.framing !== NO_BODY)
      this.startTimer(T_BODY, exchange.bodyTimeoutMs);
    else this.clearTimer();
    exchange.resolve(response);
  }

  onBody(chunk: Buffer): void {
    (this.response as Response).push(chunk);
  }

  onComplete(): void {
    this.completed = true;
    this.clearTimer();
    (this.exchange as Exchange).detach();
    (this.response as Response).end();
  }

  // BodySource

  pause(): void {
    this.socket.pause();
    if (this.timerKind === T_BODY) this.clearTimer();
  }

  resume(): void {
    this.socket.resume();
    const ms = this.exchange?.bodyTimeoutMs;
    if (ms && this.timerKind === T_NONE) this.startTimer(T_BODY, ms);
  }

  cancel(): void {
    this.teardown();
  }

  // socket events

  private onConnect(): void {
    this.connected = true;
    if (this.exchange && this.timerKind === T_CONNECT)
      this.startHeadersTimer(this.exchange);
  }

  private onData(chunk: Buffer): void {
    if (this.exchange === undefined || this.completed) {
      this.socket.destroy(); // bytes nobody asked for: the socket cannot be trusted
      return;
    }
    if (this.timerKind === T_BODY) this.deadline = deadlineIn(this.timerMs);
    let extra: number;
    try {
      extra = this.parser.execute(chunk);
    } catch (error) {
      this.failParse(error);
      return;
    }
    if (extra > 0) this.reusable = false;
    if (this.completed && this.exchange) this.finish();
  }

  private onEnd(): void {
    this.reusable = false;
    if (this.exchange === undefined || this.completed) return; // 'close' follows
    if (this.parser.finish()) this.finish();
    else this.fail(closedEarly(this.pool.where));
  }

  private onError(error: Error): void {
    if (this.exchange === undefined || this.completed) return; // 'close' follows
    const what = this.connected
      ? `the connection to ${this.pool.where} failed`
      : `could not connect to ${this.pool.where}`;
    this.fail(upstreamError(`${what}: ${error.message}`, error));
  }

  private onClose(): void {
    if (this.exchange && !this.completed)
      this.fail(closedEarly(this.pool.where));
    this.exchange = undefined;
    this.response = undefined;
    this.clearTimer();
    unwatch(this);
    this.pool.gone(this);
  }

  private readonly onWritten = (error?: Error | null): void => {
    if (error) return; // the socket's 'error' handles it
    this.written = true;
    if (this.completed && this.exchange) this.finish();
  };

  expire(): void {
    const kind = this.timerKind;
    this.deadline = 0;
    this.timerKind = T_NONE;
    if (kind === T_IDLE) this.socket.destroy();
    else
      this.fail(
        timeoutError(this.pool.where, TIMER_NAMES[kind] ?? "", this.timerMs),
      );
  }

  // helpers

  /** The response is complete: hand the socket back once the request is fully written too. */
  private finish(): void {
    if (!this.written) return;
    this.exchange = undefined;
    this.response = undefined;
    if (this.reusable && !this.socket.destroyed) this.pool.release(this);
    else this.socket.destroy();
  }

  private failParse(error: unknown): void {
    const message =
      error instanceof ParseError
        ? `${error.message} from ${this.pool.where}`
        : `unreadable response from ${this.pool.where}`;
    this.fail(upstreamError(message, error));
  }

  /** Detaches the exchange in flight and destroys the socket; returns the exchange. */
  private teardown(): Exchange | undefined {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.response = undefined;
    this.reusable = false;
    this.clearTimer();
    this.parser.reset();
    exchange?.detach();
    this.socket.destroy();
    return exchange;
  }

  private startHeadersTimer(exchange: Exchange): void {
    if (exchange.headersTimeoutMs)
      this.startTimer(T_HEADERS, exchange.headersTimeoutMs);
    else this.clearTimer();
  }

  private startTimer(kind: number, ms: number): void {
    this.clearTimer();
    this.timerKind = kind;
    this.timerMs = ms;
    this.deadline = deadlineIn(ms);
  }

  private clearTimer(): void {
    this.deadline = 0;
    this.timerKind = T_NONE;
  }
}
