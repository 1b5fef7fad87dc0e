/**
 * Per-provider admission (SPEC 8.1): at most `concurrency` upstream calls in flight and at
 * most `bufferSize` callers waiting for a slot. When the buffer is full the caller is either
 * rejected at once (`drop_excess_requests` true: HTTP 429 `request dropped: queue is full`) or
 * waits for room in the buffer (false). A waiting caller that goes away (its signal aborts)
 * leaves the queue without ever reaching the provider.
 *
 * Slots are handed over in FIFO order; "waiting for room" callers (buffer full, no dropping)
 * are themselves FIFO and move into the buffer as it drains, so arrival order is preserved.
 */
import { GatewayError } from "../errors.js";

export type Release = () => void;

export interface QueueStats {
  readonly concurrency: number;
  readonly bufferSize: number;
  readonly inFlight: number;
  /** Callers in the buffer waiting for a slot. */
  readonly waiting: number;
  /** Callers waiting for room in the full buffer (only when not dropping). */
  readonly overflow: number;
}

interface Waiter {
  readonly grant: (release: Release) => void;
  readonly reject: (e: unknown) => void;
  readonly cleanup: () => void;
}

export class ProviderQueue {
  #concurrency: number;
  #bufferSize: number;
  #inFlight = 0;
  readonly #buffer: Waiter[] = [];
  readonly #overflow: Waiter[] = [];
  readonly #dropExcess: () => boolean;

  constructor(
    concurrency: number,
    bufferSize: number,
    dropExcess: () => boolean,
  ) {
    this.#concurrency = concurrency;
    this.#bufferSize = bufferSize;
    this.#dropExcess = dropExcess;
  }

  get stats(): QueueStats {
    return {
      concurrency: this.#concurrency,
      bufferSize: this.#bufferSize,
      inFlight: this.#inFlight,
      waiting: this.#buffer.length,
      overflow: this.#overflow.length,
    };
  }

  /** New limits from a config change; applies to waiting callers at once. */
  resize(concurrency: number, bufferSize: number): void {
    this.#concurrency = concurrency;
    this.#bufferSize = bufferSize;
    this.#pump();
  }

  /**
   * A slot, or a rejection: TG_ERR_QUEUE_FULL when dropping, the signal's reason when the
   * caller leaves while waiting. The returned release must be called exactly once.
   */
  acquire(signal?: AbortSignal): Promise<Release> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#inFlight < this.#concurrency && this.#buffer.length === 0) {
      this.#inFlight++;
      return Promise.resolve(this.#releaser());
    }
    const full = this.#buffer.length >= this.#bufferSize;
    if (full && this.#dropExcess())
      return Promise.reject(new GatewayError("TG_ERR_QUEUE_FULL"));
    return new Promise<Release>((resolve, reject) => {
      const list = full ? this.#overflow : this.#buffer;
      const onAbort = (): void => {
        if (!remove(this.#buffer, waiter)) remove(this.#overflow, waiter);
        reject(abortReason(signal));
        this.#pump();
      };
      const waiter: Waiter = {
        grant: resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      list.push(waiter);
    });
  }

  /** Shutdown: every waiting caller is rejected with `reason`; in-flight calls finish. */
  rejectWaiting(reason: unknown): void {
    for (const w of [...this.#buffer.splice(0), ...this.#overflow.splice(0)]) {
      w.cleanup();
      w.reject(reason);
    }
  }

  #releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#inFlight--;
      this.#pump();
    };
  }

  #pump(): void {
    while (this.#inFlight < this.#concurrency) {
      // Overflow callers only exist while the buffer was full, so taking from it once the
      // buffer is empty keeps arrival order (and makes buffer_size 0 work).
      const next = this.#buffer.shift() ?? this.#overflow.shift();
      if (!next) break;
      next.cleanup();
      this.#inFlight++;
      next.grant(this.#releaser());
    }
    while (
      this.#overflow.length > 0 &&
      this.#buffer.length < this.#bufferSize
    ) {
      const moved = this.#overflow.shift();
      if (moved) this.#buffer.push(moved);
    }
  }
}

function remove<T>(list: T[], item: T): boolean {
  const i = list.indexOf(item);
  if (i < 0) return false;
  list.splice(i, 1);
  return true;
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error
    ? reason
    : new Error(typeof reason === "string" ? reason : "aborted");
}
