/**
 * `initial_pool_size` (SPEC 2.5, 8.1) in a Node process: the number of per-request context
 * objects preallocated when the chat service starts. Each proxied provider call takes one
 * context for its bookkeeping (timings, token usage, labels) and gives it back when the call
 * ends, so the steady-state proxy path allocates no bookkeeping objects and a burst up to the
 * pool size causes no allocation (and no GC pressure) at all. Beyond the pool size, contexts
 * are created on demand and kept for reuse, up to twice the initial size; extra ones are left
 * to the garbage collector. SPEC's sizing guidance applies unchanged: about 1.5 x the requests
 * per second across providers.
 */

/** Mutable bookkeeping of one provider call; fields are reset on acquire. */
export class CallContext {
  provider = "";
  model = "";
  requestId = "";
  startedAt = 0;
  firstChunkAt = 0;
  lastChunkAt = 0;
  interChunkSeconds: number[] = [];
  inputTokens: number | undefined = undefined;
  outputTokens: number | undefined = undefined;

  reset(provider: string, model: string, requestId: string, now: number): this {
    this.provider = provider;
    this.model = model;
    this.requestId = requestId;
    this.startedAt = now;
    this.firstChunkAt = 0;
    this.lastChunkAt = 0;
    // A fresh array: the previous one was handed to telemetry, which may still hold it.
    this.interChunkSeconds = [];
    this.inputTokens = undefined;
    this.outputTokens = undefined;
    return this;
  }
}

export interface PoolStats {
  readonly initialSize: number;
  /** Contexts ready for reuse. */
  readonly available: number;
  /** Contexts currently lent to calls. */
  readonly inUse: number;
  /** Contexts created since start, the preallocated ones included. */
  readonly created: number;
}

export class ContextPool {
  readonly #free: CallContext[] = [];
  readonly #initial: number;
  #inUse = 0;
  #created = 0;

  constructor(initialSize: number) {
    this.#initial = initialSize;
    for (let i = 0; i < initialSize; i++) this.#free.push(this.#make());
  }

  acquire(): CallContext {
    this.#inUse++;
    return this.#free.pop() ?? this.#make();
  }

  release(ctx: CallContext): void {
    this.#inUse--;
    if (this.#free.length < this.#initial * 2) this.#free.push(ctx);
  }

  get stats(): PoolStats {
    return {
      initialSize: this.#initial,
      available: this.#free.length,
      inUse: this.#inUse,
      created: this.#created,
    };
  }

  #make(): CallContext {
    this.#created++;
    return new CallContext();
  }
}
