/**
 * `StateStore` on top of a `Backend`: namespacing, the versioned envelope, validation of read
 * values, locks with owner tokens, and fan-out of one backend subscription to many handlers.
 * Written once so the memory and Redis stores cannot drift apart in these rules.
 */
import { randomUUID } from "node:crypto";

import type { Logger } from "pino";
import type { z } from "zod";

import { GatewayError } from "../errors.js";
import {
  decodeMessage,
  decodeStored,
  encodeMessage,
  toJson,
} from "./envelope.js";
import type {
  Backend,
  CasResult,
  Entry,
  Lock,
  LockOptions,
  MessageHandler,
  SetOptions,
  StateStore,
  StateStoreStats,
  Unsubscribe,
} from "./types.js";

export interface EnvelopeStoreOptions {
  readonly backend: Backend;
  readonly namespace: string;
  readonly logger: Logger;
  /** Prefix of default lock owner tokens, so a lock in Redis says which pod holds it. */
  readonly podId: string;
}

// The global timer (not node:timers/promises), so fake timers in tests drive lock waits too.
const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isFinite(ttlMs) || ttlMs < 1)
    throw new RangeError(
      `ttlMs must be a positive number of milliseconds, got ${ttlMs}`,
    );
  return Math.ceil(ttlMs);
}

export class EnvelopeStore implements StateStore {
  readonly backend: "memory" | "redis";
  readonly namespace: string;
  private readonly raw: Backend;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly podId: string;
  private readonly handlers = new Map<string, Set<MessageHandler>>();

  constructor(options: EnvelopeStoreOptions) {
    if (!/^[A-Za-z0-9_.-]+$/.test(options.namespace)) {
      throw new RangeError(
        `state namespace "${options.namespace}" may use letters, digits, '.', '_' and '-' only`,
      );
    }
    this.raw = options.backend;
    this.backend = options.backend.kind;
    this.namespace = options.namespace;
    this.prefix = `${options.namespace}:`;
    this.logger = options.logger;
    this.podId = options.podId;
    this.raw.onMessage((channel, payload) => this.dispatch(channel, payload));
  }

  private full(key: string): string {
    if (key.length === 0) throw new RangeError("state keys must not be empty");
    return this.prefix + key;
  }

  private entry<T>(key: string, text: string, schema?: z.ZodType<T>): Entry<T> {
    const { rev, data } = decodeStored(this.full(key), text);
    if (!schema) return { key, rev, value: data as T };
    const parsed = schema.safeParse(data);
    if (!parsed.success) {
      throw new GatewayError(
        "TG_ERR_STATE_FORMAT",
        `state key "${this.full(key)}" holds a value of the wrong shape: ${parsed.error.message}`,
        {
          key: this.full(key),
        },
      );
    }
    return { key, rev, value: parsed.data };
  }

  async get<T>(
    key: string,
    schema?: z.ZodType<T>,
  ): Promise<Entry<T> | undefined> {
    const text = await this.raw.get(this.full(key));
    return text === undefined ? undefined : this.entry(key, text, schema);
  }

  async set(
    key: string,
    value: unknown,
    options: SetOptions = {},
  ): Promise<number> {
    const r = await this.raw.write(
      this.full(key),
      toJson(value),
      checkTtl(options.ttlMs),
      undefined,
    );
    return r.rev;
  }

  async compareAndSet(
    key: string,
    expectedRev: number,
    value: unknown,
    options: SetOptions = {},
  ): Promise<CasResult> {
    if (!Number.isInteger(expectedRev) || expectedRev < 0)
      throw new RangeError(
        `expectedRev must be an integer >= 0, got ${expectedRev}`,
      );
    const r = await this.raw.write(
      this.full(key),
      toJson(value),
      checkTtl(options.ttlMs),
      expectedRev,
    );
    if (r.ok) return { ok: true, rev: r.rev };
    return {
      ok: false,
      current: r.current === undefined ? undefined : this.entry(key, r.current),
    };
  }

  async delete(key: string): Promise<boolean> {
    return await this.raw.del(this.full(key));
  }

  async take<T>(
    key: string,
    schema?: z.ZodType<T>,
  ): Promise<Entry<T> | undefined> {
    const text = await this.raw.take(this.full(key));
    return text === undefined ? undefined : this.entry(key, text, schema);
  }

  async list<T>(prefix: string, schema?: z.ZodType<T>): Promise<Entry<T>[]> {
    const rows = await this.raw.scan(this.prefix + prefix);
    const out: Entry<T>[] = [];
    for (const [full, text] of rows) {
      try {
        out.push(this.entry(full.slice(this.prefix.length), text, schema));
      } catch (e) {
        // One value written by a newer gateway (rolling upgrade) or damaged must not hide all the others.
        this.logger.warn(
          { err: e, key: full },
          "state: skipping a value of an unsupported format in a listing",
        );
      }
    }
    return out;
  }

  async increment(
    key: string,
    by = 1,
    options: SetOptions = {},
  ): Promise<number> {
    if (!Number.isSafeInteger(by))
      throw new RangeError(`increment must be an integer, got ${by}`);
    return await this.raw.incr(this.full(key), by, checkTtl(options.ttlMs));
  }

  async counter(key: string): Promise<number> {
    // A read, not INCRBY 0: that would create the key.
    const text = await this.raw.get(this.full(key));
    if (text === undefined) return 0;
    const n = Number(text);
    if (!Number.isSafeInteger(n))
      throw new GatewayError(
        "TG_ERR_STATE_FORMAT",
        `state key "${this.full(key)}" is not a counter`,
        { key: this.full(key) },
      );
    return n;
  }

  async lock(name: string, options: LockOptions): Promise<Lock | undefined> {
    const ttlMs = checkTtl(options.ttlMs) ?? 1;
    const key = this.full(`lock:${name}`);
    const owner = options.owner ?? `${this.podId}:${randomUUID()}`;
    const deadline = Date.now() + (options.waitMs ?? 0);
    for (;;) {
      if (await this.raw.lockAcquire(key, owner, ttlMs))
        return this.held(key, owner);
      if (Date.now() >= deadline) return undefined;
      await sleep(
        Math.min(options.retryMs ?? 50, Math.max(1, deadline - Date.now())),
      );
    }
  }

  private held(key: string, owner: string): Lock {
    return {
      key: key.slice(this.prefix.length),
      owner,
      release: async () => await this.raw.lockRelease(key, owner),
      extend: async (ttlMs: number) =>
        await this.raw.lockExtend(key, owner, checkTtl(ttlMs) ?? 1),
    };
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.raw.publish(this.full(channel), encodeMessage(message));
  }

  async subscribe(
    channel: string,
    handler: MessageHandler,
  ): Promise<Unsubscribe> {
    const full = this.full(channel);
    let set = this.handlers.get(full);
    if (!set) {
      set = new Set();
      this.handlers.set(full, set);
    }
    // A wrapper per registration, so subscribing the same function twice unsubscribes independently.
    const registration: MessageHandler = (m, c) => handler(m, c);
    set.add(registration);
    if (set.size === 1) {
      try {
        await this.raw.subscribe(full);
      } catch (e) {
        // The backend keeps the channel and subscribes when it is back (see RedisBackend).
        this.logger.warn(
          { err: e, channel: full },
          "state store unreachable; the subscription becomes active when it returns",
        );
      }
    }
    return async () => {
      const current = this.handlers.get(full);
      if (!current?.delete(registration) || current.size > 0) return;
      this.handlers.delete(full);
      await this.raw.unsubscribe(full);
    };
  }

  private dispatch(channel: string, payload: string): void {
    const set = this.handlers.get(channel);
    if (!set || set.size === 0) return;
    const decoded = decodeMessage(channel, payload);
    if (decoded instanceof Error) {
      this.logger.warn({ channel }, decoded.message);
      return;
    }
    const logical = channel.slice(this.prefix.length);
    for (const h of [...set]) {
      try {
        h(decoded.data, logical);
      } catch (e) {
        // One failing subscriber must not starve the others or reach the connection's event loop.
        this.logger.error({ err: e, channel }, "state subscriber threw");
      }
    }
  }

  onReconnect(listener: () => void): () => void {
    return this.raw.onReconnect(listener);
  }

  async ping(): Promise<void> {
    await this.raw.ping();
  }

  stats(): StateStoreStats {
    return { commands: this.raw.commands() };
  }

  async close(): Promise<void> {
    this.handlers.clear();
    await this.raw.close();
  }
}
