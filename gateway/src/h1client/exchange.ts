/** One request on its way through the pool: queued, then on a connection until its response completes. */
import { abortReason } from "./failures.js";
import type { H1Response } from "./types.js";

/** What an exchange needs from the pool and from its connection when the caller aborts. */
export interface AbortTarget {
  abort(exchange: Exchange, reason: unknown): void;
}

export class Exchange {
  readonly promise: Promise<H1Response>;
  resolve!: (response: H1Response) => void;
  reject!: (error: unknown) => void;
  /** The connection carrying it; the pool while it waits in the queue. */
  owner: AbortTarget;

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
    // The exchange is its own abort listener (handleEvent), so no closure per request.
    signal?.addEventListener("abort", this);
  }

  handleEvent(): void {
    this.owner.abort(this, abortReason(this.signal as AbortSignal));
  }

  /** Stops listening to the signal: the exchange is over. */
  detach(): void {
    this.signal?.removeEventListener("abort", this);
  }
}
