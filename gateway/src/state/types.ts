/**
 * The shared-state contract. Gateway pods are stateless; what must be shared (OAuth flows and
 * tokens, refresh locks, per-pod health, tool snapshots, runtime clients, list_changed
 * events) goes through a `StateStore`. A single process uses the memory store; a fleet uses
 * Redis. Both pass the one contract suite in `contract.ts`.
 *
 * Keys given to the store are logical (`health:github:pod-a`); the store prefixes its
 * namespace (`toolgate:` by default), so the Redis key is `toolgate:health:github:pod-a`.
 * `keys.ts` holds the layout. Channels are namespaced the same way.
 *
 * Values are versioned JSON: `{"v":1,"rev":<n>,"data":<value>}`. `v` is the envelope format
 * (a reader rejects a version it does not know with TG_ERR_STATE_FORMAT instead of guessing);
 * `rev` is the key's write revision, starting at 1 and bumped by every write, which is what
 * compare-and-set compares. We chose revisions over "compare with the previous value":
 * comparing JSON text breaks on key order, and a revision also catches A-B-A rewrites.
 * Counters (`increment`) and locks hold raw values (an integer, an owner token) because Redis
 * operates on them natively.
 */
import type { z } from "zod";

export interface Entry<T = unknown> {
  /** The logical key (without the namespace). */
  readonly key: string;
  readonly value: T;
  /** Write revision: 1 for the first write, +1 for every later one. */
  readonly rev: number;
}

export interface SetOptions {
  /** Expire the key after this many milliseconds. Absent: no expiry (an earlier TTL is dropped). */
  readonly ttlMs?: number | undefined;
}

export type CasResult<T = unknown> =
  | { readonly ok: true; readonly rev: number }
  | { readonly ok: false; readonly current: Entry<T> | undefined };

/** A held lock. Only its owner can release or extend it; both say whether they still held it. */
export interface Lock {
  readonly key: string;
  readonly owner: string;
  /** Releases the lock if this owner still holds it; false when it had expired or was taken over. */
  release(): Promise<boolean>;
  /** Renews the expiry to `ttlMs` from now if this owner still holds it. */
  extend(ttlMs: number): Promise<boolean>;
}

export interface LockOptions {
  /** The lock expires after this long unless extended, so a crashed owner cannot block forever. */
  readonly ttlMs: number;
  /** Owner token; default: `<podId>:<random>`. Two acquisitions never share a token by accident. */
  readonly owner?: string;
  /** Keep trying for this long when the lock is held (default 0: one attempt). */
  readonly waitMs?: number;
  /** Pause between attempts while waiting (default 50 ms). */
  readonly retryMs?: number;
}

export type MessageHandler = (message: unknown, channel: string) => void;
export type Unsubscribe = () => Promise<void>;

export interface StateStoreStats {
  /** Operations sent to the backend (Redis commands, or memory operations). Reads served from
   *  a service's local cache never count, which is how the hot path is shown to stay local. */
  readonly commands: number;
}

export interface StateStore {
  readonly backend: "memory" | "redis";
  /** The key prefix without the trailing colon, `toolgate` by default. */
  readonly namespace: string;

  get(key: string): Promise<Entry | undefined>;
  /** Reads and validates: a value the schema rejects is TG_ERR_STATE_FORMAT naming the key. */
  get<T>(key: string, schema: z.ZodType<T>): Promise<Entry<T> | undefined>;
  /** Writes unconditionally and returns the new revision. */
  set(key: string, value: unknown, options?: SetOptions): Promise<number>;
  /** Writes only if the key's revision is `expectedRev` (0: the key must not exist). */
  compareAndSet(
    key: string,
    expectedRev: number,
    value: unknown,
    options?: SetOptions,
  ): Promise<CasResult>;
  /** Deletes; true when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Reads and deletes in one step (single-use values such as an OAuth `state`). */
  take(key: string): Promise<Entry | undefined>;
  take<T>(key: string, schema: z.ZodType<T>): Promise<Entry<T> | undefined>;
  /**
   * Every entry whose logical key starts with `prefix` (SCAN, never KEYS, on Redis). Order
   * unspecified. Unlike `get`, a value of an unknown format (or failing `schema`) is skipped
   * and logged, so one key from a newer gateway does not hide the rest.
   */
  list(prefix: string): Promise<Entry[]>;
  list<T>(prefix: string, schema: z.ZodType<T>): Promise<Entry<T>[]>;

  /** Atomically adds `by` (default 1) and returns the new value; `ttlMs` is set when the counter has none. */
  increment(key: string, by?: number, options?: SetOptions): Promise<number>;
  /** The counter's value, 0 when absent. */
  counter(key: string): Promise<number>;

  /** Acquires `lock:<name>`; undefined when someone else holds it (after `waitMs`). */
  lock(name: string, options: LockOptions): Promise<Lock | undefined>;

  /** Publishes to every subscriber of `channel` on every pod, this one included. */
  publish(channel: string, message: unknown): Promise<void>;
  /**
   * Registers `handler`; resolves once the subscription is active. The registration survives
   * reconnects. If the backend is unreachable it still resolves (and logs), and the
   * subscription becomes active when the backend returns.
   */
  subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe>;
  /** Called after the store reconnected (messages may have been missed: resync). Never for memory. */
  onReconnect(listener: () => void): () => void;

  /** Resolves when the backend answers; rejects with TG_ERR_STATE_UNAVAILABLE otherwise. */
  ping(): Promise<void>;
  stats(): StateStoreStats;
  close(): Promise<void>;
}

/**
 * What a backend provides, on full (namespaced) keys and raw strings. `EnvelopeStore` adds
 * namespacing, envelopes, validation and locks on top, once for both backends.
 */
export interface WriteResult {
  readonly ok: boolean;
  /** New revision when ok; the current revision (0: absent) when not. */
  readonly rev: number;
  /** The current raw value when the write was refused. */
  readonly current?: string | undefined;
}

export interface Backend {
  readonly kind: "memory" | "redis";
  get(key: string): Promise<string | undefined>;
  /** Writes `{"v":1,"rev":<next>,"data":<dataJson>}`; with `expectedRev`, only if the revision matches. */
  write(
    key: string,
    dataJson: string,
    ttlMs: number | undefined,
    expectedRev: number | undefined,
  ): Promise<WriteResult>;
  del(key: string): Promise<boolean>;
  take(key: string): Promise<string | undefined>;
  scan(prefix: string): Promise<[string, string][]>;
  incr(key: string, by: number, ttlMs: number | undefined): Promise<number>;
  lockAcquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  lockRelease(key: string, owner: string): Promise<boolean>;
  lockExtend(key: string, owner: string, ttlMs: number): Promise<boolean>;
  publish(channel: string, payload: string): Promise<void>;
  /** Adds the channel to the subscriber connection; deliveries go to `onMessage`. */
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  onMessage(listener: (channel: string, payload: string) => void): void;
  onReconnect(listener: () => void): () => void;
  ping(): Promise<void>;
  commands(): number;
  close(): Promise<void>;
}
