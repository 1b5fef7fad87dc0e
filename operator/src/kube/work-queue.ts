/**
 * A work queue keyed by `kind/namespace/name` (client-go's workqueue, Pepr's queue): a key
 * waits at most once, is never processed by two workers at once, and a key added while it is
 * being processed runs again afterwards. Failed keys come back with per-key exponential
 * backoff; success forgets the failure count.
 */
import {
  backoffDelay,
  type BackoffOptions,
  DEFAULT_BACKOFF,
} from "./backoff.js";

export type Handler = (key: string) => Promise<void>;

export interface WorkQueueOptions {
  backoff?: BackoffOptions;
  random?: () => number;
  onError?: (key: string, error: unknown) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private waiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private workers: Promise<void>[] = [];

  constructor(private readonly opts: WorkQueueOptions = {}) {}

  get depth(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.waiters.shift()?.();
  }

  /** Adds `key` after `ms`; an earlier pending delayed add of the same key is kept. */
  addAfter(key: string, ms: number): void {
    if (this.stopped || this.timers.has(key)) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    t.unref();
    this.timers.set(key, t);
  }

  /** Starts `n` workers running `handler`. */
  run(handler: Handler, n = 2): void {
    for (let i = 0; i < n; i++) this.workers.push(this.work(handler));
  }

  /** Resolves when nothing is queued or processing (delayed adds do not count). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.processing.size === 0)
      return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    for (const w of this.waiters.splice(0)) w();
    await Promise.all(this.workers);
    this.workers = [];
  }

  private next(): Promise<string | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    const key = this.queue.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) =>
      this.waiters.push(() => resolve(this.next())),
    );
  }

  private async work(handler: Handler): Promise<void> {
    for (
      let key = await this.next();
      key !== undefined;
      key = await this.next()
    ) {
      this.processing.add(key);
      try {
        await handler(key);
        this.failures.delete(key);
      } catch (error) {
        const n = this.failures.get(key) ?? 0;
        this.failures.set(key, n + 1);
        this.opts.onError?.(key, error);
        this.addAfter(
          key,
          backoffDelay(
            n,
            this.opts.backoff ?? DEFAULT_BACKOFF,
            this.opts.random,
          ),
        );
      } finally {
        this.processing.delete(key);
        if (this.dirty.delete(key)) this.add(key);
        this.notifyIdle();
      }
    }
  }

  private notifyIdle(): void {
    if (this.queue.length === 0 && this.processing.size === 0)
      for (const w of this.idleWaiters.splice(0)) w();
  }
}
