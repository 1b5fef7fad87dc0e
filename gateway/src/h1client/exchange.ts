/** One request on its way through the pool: queued, then on a connection until its response completes. */
import { abortReason } from "./failures.js";
import type { H1Response } from "./types.js";

/** What an exchange needs from the pool and from its connection when the caller aborts. */
export interface AbortTarget {
  abort(exchange: Exchange, reason: unknown): void;
}

function abortExchange(exchange: Exchange): void {
  exchange.owner.abort(exchange, abortReason(exchange.signal as AbortSignal));
}

export class Exchange {
  readonly promise: Promise<H1Response>;
  resolve!: (response: H1Response) => void;
  reject!: (error: unknown) => void;
  /** The connection carrying it; the pool while it waits in the queue. */
  owner: AbortTarget;
  readonly #onAbort: (() => void) | undefined;

  constructor(
    /** Head and body, serialised for one `socket.write`. */
    readonly data: string | Buffer,
    readonly isHead: boolean,
    readonly signal: AbortSignal | undefined,
    readonly headersTimeoutMs: number | undefined,
    readonly bodyTimeoutMs: number | undefined,
    pool: AbortTarget,
  ) {
    this.owner = pool;
    this.promise = new Promise<H1Response>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (signal) {
      // A bound function: neither the exchange as a `handleEvent` object (node wraps that in
      // an async closure) nor an arrow that captures `this`. With either, nearly every
      // request's objects survived scavenges under load (bench/chat c16 in-thread: 21-32 MB
      // promoted per 13k requests against 5 MB; young generation grown to 32-64 MB, 2-6 ms
      // scavenge pauses).
      this.#onAbort = abortExchange.bind(undefined, this);
      signal.addEventListener("abort", this.#onAbort);
    }
  }

  /** Stops listening to the signal: the exchange is over. */
  detach(): void {
    if (this.#onAbort) this.signal?.removeEventListener("abort", this.#onAbort);
  }
}
