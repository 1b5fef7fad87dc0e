/**
 * The in-process backend. Expiry is lazy (checked on every access against `Date.now()`, which
 * vitest's fake timers control) plus a sweep every few hundred writes so expired keys nobody
 * reads again do not pile up; no timers, so nothing keeps the process alive. Pub/sub delivers
 * in a microtask, never synchronously inside `publish`, like Redis does.
 *
 * Several backends may share one `MemoryHub`: that is how tests run two "pods" without
 * Redis, and how the services' multi-pod tests run against both stores.
 */
import { GatewayError } from "../errors.js";
import { envelopeText, revisionOf } from "./envelope.js";
import type { Backend, WriteResult } from "./types.js";

interface Slot {
  text: string;
  expiresAt: number | undefined;
}

const SWEEP_EVERY = 256;

export class MemoryHub {
  readonly data = new Map<string, Slot>();
  readonly channels = new Map<string, Set<MemoryBackend>>();
  private writes = 0;

  live(key: string): Slot | undefined {
    const slot = this.data.get(key);
    if (slot?.expiresAt !== undefined && slot.expiresAt <= Date.now()) {
      this.data.delete(key);
      return undefined;
    }
    return slot;
  }

  put(key: string, text: string, ttlMs: number | undefined): void {
    this.data.set(key, {
      text,
      expiresAt: ttlMs === undefined ? undefined : Date.now() + ttlMs,
    });
    if (++this.writes % SWEEP_EVERY === 0) this.sweep();
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, s] of this.data)
      if (s.expiresAt !== undefined && s.expiresAt <= now) this.data.delete(k);
  }
}

export class MemoryBackend implements Backend {
  readonly kind = "memory" as const;
  private count = 0;
  private closed = false;
  private readonly subscribed = new Set<string>();
  private readonly listeners: ((channel: string, payload: string) => void)[] =
    [];

  constructor(private readonly hub: MemoryHub = new MemoryHub()) {}

  private op(): void {
    if (this.closed)
      throw new GatewayError(
        "TG_ERR_STATE_UNAVAILABLE",
        "the state store is closed",
      );
    this.count++;
  }

  get(key: string): Promise<string | undefined> {
    this.op();
    return Promise.resolve(this.hub.live(key)?.text);
  }

  write(
    key: string,
    dataJson: string,
    ttlMs: number | undefined,
    expectedRev: number | undefined,
  ): Promise<WriteResult> {
    this.op();
    const current = this.hub.live(key)?.text;
    const rev = revisionOf(current);
    if (expectedRev !== undefined && expectedRev !== rev)
      return Promise.resolve({ ok: false, rev, current });
    this.hub.put(key, envelopeText(rev + 1, dataJson), ttlMs);
    return Promise.resolve({ ok: true, rev: rev + 1 });
  }

  del(key: string): Promise<boolean> {
    this.op();
    const existed = this.hub.live(key) !== undefined;
    this.hub.data.delete(key);
    return Promise.resolve(existed);
  }

  take(key: string): Promise<string | undefined> {
    this.op();
    const text = this.hub.live(key)?.text;
    this.hub.data.delete(key);
    return Promise.resolve(text);
  }

  scan(prefix: string): Promise<[string, string][]> {
    this.op();
    const out: [string, string][] = [];
    for (const key of [...this.hub.data.keys()]) {
      const slot = key.startsWith(prefix) ? this.hub.live(key) : undefined;
      if (slot) out.push([key, slot.text]);
    }
    return Promise.resolve(out);
  }

  incr(key: string, by: number, ttlMs: number | undefined): Promise<number> {
    this.op();
    const slot = this.hub.live(key);
    const current = slot === undefined ? 0 : Number(slot.text);
    if (!Number.isSafeInteger(current)) {
      return Promise.reject(
        new GatewayError(
          "TG_ERR_STATE_FORMAT",
          `state key "${key}" is not a counter`,
          { key },
        ),
      );
    }
    const next = current + by;
    // Like the Redis script: a TTL is applied only when the counter has none yet.
    const expiresAt =
      slot?.expiresAt ?? (ttlMs === undefined ? undefined : Date.now() + ttlMs);
    this.hub.data.set(key, { text: String(next), expiresAt });
    return Promise.resolve(next);
  }

  lockAcquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.op();
    if (this.hub.live(key)) return Promise.resolve(false);
    this.hub.put(key, owner, ttlMs);
    return Promise.resolve(true);
  }

  lockRelease(key: string, owner: string): Promise<boolean> {
    this.op();
    if (this.hub.live(key)?.text !== owner) return Promise.resolve(false);
    this.hub.data.delete(key);
    return Promise.resolve(true);
  }

  lockExtend(key: string, owner: string, ttlMs: number): Promise<boolean> {
    this.op();
    const slot = this.hub.live(key);
    if (slot?.text !== owner) return Promise.resolve(false);
    slot.expiresAt = Date.now() + ttlMs;
    return Promise.resolve(true);
  }

  publish(channel: string, payload: string): Promise<void> {
    this.op();
    for (const b of this.hub.channels.get(channel) ?? [])
      queueMicrotask(() => b.deliver(channel, payload));
    return Promise.resolve();
  }

  private deliver(channel: string, payload: string): void {
    if (!this.subscribed.has(channel)) return; // unsubscribed between publish and delivery
    for (const l of this.listeners) l(channel, payload);
  }

  subscribe(channel: string): Promise<void> {
    this.op();
    this.subscribed.add(channel);
    let set = this.hub.channels.get(channel);
    if (!set) {
      set = new Set();
      this.hub.channels.set(channel, set);
    }
    set.add(this);
    return Promise.resolve();
  }

  unsubscribe(channel: string): Promise<void> {
    this.subscribed.delete(channel);
    this.hub.channels.get(channel)?.delete(this);
    return Promise.resolve();
  }

  onMessage(listener: (channel: string, payload: string) => void): void {
    this.listeners.push(listener);
  }

  onReconnect(): () => void {
    return () => undefined; // memory never disconnects
  }

  ping(): Promise<void> {
    if (this.closed)
      return Promise.reject(
        new GatewayError(
          "TG_ERR_STATE_UNAVAILABLE",
          "the state store is closed",
        ),
      );
    return Promise.resolve();
  }

  commands(): number {
    return this.count;
  }

  close(): Promise<void> {
    for (const c of this.subscribed) this.hub.channels.get(c)?.delete(this);
    this.subscribed.clear();
    this.closed = true;
    return Promise.resolve();
  }
}
