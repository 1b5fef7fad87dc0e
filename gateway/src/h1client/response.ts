/**
 * The response handed to the caller at the head. Body bytes that arrive before the caller
 * picks a consumer are kept (the socket is paused past 64 KiB); then exactly one of
 * `text()`, `buffer()`, `stream()` or `dump()` takes them.
 */
import { Readable } from "node:stream";

import { rejected, upstreamError } from "./failures.js";
import type { H1Response } from "./types.js";

/** The connection as the body sees it. */
export interface BodySource {
  pause(): void;
  resume(): void;
  /** The consumer gave up on the body: the connection is torn down, not reused. */
  cancel(): void;
}

const UNCLAIMED = 0;
const BUFFER = 1;
const STREAM = 2;
const DUMP = 3;

/** Body bytes kept before a consumer is chosen, beyond which the socket is paused. */
const PENDING_LIMIT = 64 * 1024;

/**
 * The body as a stream. A subclass rather than `new Readable({ read, destroy })`: closures
 * made per request and kept in properties cost far more garbage-collection work on node 24
 * (see exchange.ts).
 */
class BodyReadable extends Readable {
  constructor(private readonly response: Response) {
    super();
  }

  override _read(): void {
    this.response.wantMore();
  }

  override _destroy(
    error: Error | null,
    callback: (error?: Error | null) => void,
  ): void {
    this.response.streamDestroyed();
    callback(error);
  }
}

export class Response implements H1Response {
  private mode = UNCLAIMED;
  private chunks: Buffer[] = [];
  private size = 0;
  private done = false;
  private failed = false;
  private error: unknown;
  private paused = false;
  private asText = false;
  private resolve: ((body: string | Buffer) => void) | undefined;
  private reject: ((error: unknown) => void) | undefined;
  private readable: Readable | undefined;

  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    private readonly source: BodySource,
    private readonly maxBodyBytes: number,
    private readonly where: string,
  ) {}

  text(): Promise<string> {
    return this.collect(true) as Promise<string>;
  }

  buffer(): Promise<Buffer> {
    return this.collect(false) as Promise<Buffer>;
  }

  stream(): Readable {
    this.claim(STREAM);
    const readable = new BodyReadable(this);
    this.readable = readable;
    for (const chunk of this.chunks) readable.push(chunk);
    this.chunks = [];
    if (this.failed) readable.destroy(this.error as Error);
    else if (this.done) readable.push(null);
    return readable;
  }

  /** The stream's consumer wants more. */
  wantMore(): void {
    this.resumeSource();
  }

  /** The stream was destroyed: before the body's end, the connection is given up. */
  streamDestroyed(): void {
    if (!this.done && !this.failed) {
      this.failed = true;
      this.source.cancel();
    }
  }

  dump(): void {
    this.claim(DUMP);
    this.chunks = [];
    this.resumeSource();
  }

  /** Body bytes from the parser. */
  push(chunk: Buffer): void {
    if (this.mode === STREAM) {
      if (!(this.readable as Readable).push(chunk)) this.pauseSource();
      return;
    }
    if (this.mode === DUMP || this.failed) return;
    this.size += chunk.length;
    if (this.mode === BUFFER && this.size > this.maxBodyBytes) {
      this.overflow();
      return;
    }
    this.chunks.push(chunk);
    if (this.mode === UNCLAIMED && this.size > PENDING_LIMIT)
      this.pauseSource();
  }

  /** The body is complete. */
  end(): void {
    this.done = true;
    if (this.mode === BUFFER && this.resolve) this.resolve(this.result());
    else if (this.mode === STREAM) (this.readable as Readable).push(null);
  }

  /** The exchange failed after the head: the consumer sees `error`. */
  fail(error: unknown): void {
    if (this.done || this.failed) return;
    this.failed = true;
    this.error = error;
    this.chunks = [];
    if (this.reject) this.reject(error);
    else if (this.readable) this.readable.destroy(error as Error);
  }

  private collect(asText: boolean): Promise<string | Buffer> {
    this.claim(BUFFER);
    this.asText = asText;
    if (this.failed) return rejected(this.error);
    if (this.size > this.maxBodyBytes) return Promise.reject(this.overflow());
    if (this.done) return Promise.resolve(this.result());
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.resumeSource();
    });
  }

  private result(): string | Buffer {
    const body =
      this.chunks.length === 1
        ? (this.chunks[0] as Buffer)
        : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    return this.asText ? body.toString("utf8") : body;
  }

  private overflow(): Error {
    const error = upstreamError(
      `the response body from ${this.where} is larger than the ${this.maxBodyBytes}-byte limit`,
    );
    if (!this.done) this.source.cancel();
    this.fail(error);
    return error;
  }

  private claim(mode: number): void {
    if (this.mode !== UNCLAIMED) {
      throw new TypeError(
        "the response body was already taken: call only one of text(), buffer(), stream() and dump()",
      );
    }
    this.mode = mode;
  }

  private pauseSource(): void {
    if (this.paused || this.done || this.failed) return;
    this.paused = true;
    this.source.pause();
  }

  private resumeSource(): void {
    if (!this.paused || this.done || this.failed) return;
    this.paused = false;
    this.source.resume();
  }
}
