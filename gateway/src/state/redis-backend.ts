/**
 * The Redis backend (ioredis). Two connections: one for commands, one in subscriber mode.
 * Every command goes through `run`, which bounds it by `COMMAND_TIMEOUT_MS`, counts it, and
 * turns any failure into TG_ERR_STATE_UNAVAILABLE naming the command and the server. Both
 * connections have error listeners, so a Redis outage is logged (once per outage) and never
 * crashes the process. The subscriber re-subscribes every wanted channel whenever it becomes
 * ready; once both connections are back after an outage (of either), `onReconnect`
 * listeners are told to resync what they may have missed.
 */
import type { EventEmitter } from "node:events";

import { Redis } from "ioredis";
import type { Logger } from "pino";

import { GatewayError, isGatewayError } from "../errors.js";
import type { Script } from "./redis-scripts.js";
import { EXTEND, INCR, RELEASE, WRITE } from "./redis-scripts.js";
import type { RedisTarget } from "./redis-target.js";
import { boundedOptions, COMMAND_TIMEOUT_MS } from "./redis-target.js";
import type { Backend, WriteResult } from "./types.js";

const SCAN_COUNT = 500;
const MGET_BATCH = 200;

/** Escapes SCAN MATCH glob characters so a prefix matches literally. */
export function globEscape(s: string): string {
  return s.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

async function withDeadline<T>(
  p: Promise<T>,
  ms: number,
  what: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(`${what} got no answer within ${COMMAND_TIMEOUT_MS} ms`),
        ),
      Math.max(1, ms),
    );
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits for `ready` only during the first connect attempt; once the connection was up or an
 * attempt failed, not-ready means an outage: fail now instead of making every caller wait.
 */
async function whenReady(
  conn: Redis,
  knownDown: boolean,
  firstReady: Promise<void>,
  ms: number,
): Promise<void> {
  if (conn.status === "ready") return;
  if (knownDown || conn.status === "end")
    throw new Error(`not connected (${conn.status})`);
  await withDeadline(firstReady, ms, "connecting");
}

/**
 * The outcome of the first connect attempt, shared by every command waiting for it (one
 * listener pair per connection): ready, or the first error (refused, WRONGPASS, TLS...).
 */
function firstOutcome(conn: Redis): Promise<void> {
  const outcome = new Promise<void>((resolve, reject) => {
    conn.once("ready", () => resolve());
    conn.once("error", reject);
  });
  outcome.catch(() => undefined); // nobody may be waiting; the error is logged by the main listener
  return outcome;
}

/**
 * ioredis listens for a socket's errors with `once`; a TLS socket can emit a second error (an
 * SSL alert after a certificate failure), which would be an uncaught exception and crash the
 * process. A permanent no-op listener on every socket absorbs it; ioredis still handles the
 * first through its own listener. This wraps ioredis' private `connector`, checked at runtime
 * (if a future ioredis renames it, the guard is skipped, not broken).
 */
function guardSockets(conn: Redis): void {
  const connector = (
    conn as unknown as {
      connector?: { connect?: (emit: unknown) => Promise<EventEmitter> };
    }
  ).connector;
  const original = connector?.connect?.bind(connector);
  if (!connector || !original) return;
  connector.connect = (emit: unknown) =>
    original(emit).then((socket) => {
      socket.on("error", () => undefined);
      return socket;
    });
}

export class RedisBackend implements Backend {
  readonly kind = "redis" as const;
  private readonly client: Redis;
  private readonly sub: Redis;
  private readonly display: string;
  private readonly logger: Logger;
  private readonly channels = new Set<string>();
  private readonly messageListeners: ((
    channel: string,
    payload: string,
  ) => void)[] = [];
  private readonly reconnectListeners = new Set<() => void>();
  private count = 0;
  private closed = false;
  private subReady = false;
  private clientWasReady = false;
  /** The subscriber is (re-)subscribing its channels: messages may still be missed. */
  private resubscribing = false;
  /**
   * A connection came back after an outage, and the listeners have not been told yet. They
   * are told once both connections are ready and the channels re-subscribed: a resync run
   * while the command connection is still down would fail, and one run before the
   * re-subscription could miss what is published in between.
   */
  private missed = false;
  /** A connection was up or failed once: from then on not-ready fails at once. */
  private readonly settled = new WeakSet<Redis>();
  /** The connection's last error, so "not connected" can say why (refused, WRONGPASS, certificate...). */
  private readonly lastError = new WeakMap<Redis, string>();
  private down = false;
  private readonly clientFirstReady: Promise<void>;
  private readonly subFirstReady: Promise<void>;

  constructor(target: RedisTarget, logger: Logger, connectionName: string) {
    this.display = target.display;
    this.logger = logger;
    // lazyConnect: the sockets are guarded (guardSockets) before the first connect starts.
    const options = {
      ...target.options,
      ...boundedOptions(connectionName),
      lazyConnect: true,
    };
    this.client =
      target.url === undefined
        ? new Redis(options)
        : new Redis(target.url, options);
    // The subscriber re-subscribes itself on "ready" (below), with the full current channel set.
    this.sub = this.client.duplicate({
      autoResubscribe: false,
      connectionName: `${connectionName}:sub`,
    });
    this.clientFirstReady = firstOutcome(this.client);
    this.subFirstReady = firstOutcome(this.sub);
    for (const [name, conn] of [
      ["commands", this.client],
      ["subscriber", this.sub],
    ] as const) {
      conn.on("error", (err: Error) => {
        this.settled.add(conn);
        this.lastError.set(conn, err.message);
        this.onError(name, err);
      });
      conn.on("ready", () => this.settled.add(conn));
      conn.on("close", () => this.settled.add(conn));
    }
    this.client.on("ready", () => {
      if (this.down)
        this.logger.info(
          { redis: this.display },
          "state store: Redis is reachable again",
        );
      this.down = false;
      if (this.clientWasReady) this.missed = true;
      this.clientWasReady = true;
      this.notifyIfBothReady();
    });
    this.sub.on("ready", () => void this.onSubscriberReady());
    this.sub.on("message", (channel: string, payload: string) => {
      for (const l of this.messageListeners) l(channel, payload);
    });
    for (const conn of [this.client, this.sub]) {
      guardSockets(conn);
      conn.connect().catch(() => undefined); // failures arrive as "error" events, handled above
    }
  }

  private onError(connection: string, err: Error): void {
    if (this.closed || this.down) return;
    this.down = true;
    this.logger.warn(
      { err, redis: this.display, connection },
      "state store: Redis is unreachable; requests that need shared state fail until it is back",
    );
  }

  private async onSubscriberReady(): Promise<void> {
    if (this.subReady) this.missed = true;
    this.subReady = true;
    if (this.channels.size > 0) {
      this.resubscribing = true;
      try {
        this.count++;
        await withDeadline(
          this.sub.subscribe(...this.channels),
          COMMAND_TIMEOUT_MS,
          "SUBSCRIBE",
        );
      } catch (e) {
        this.logger.warn(
          { err: e, redis: this.display },
          "state store: re-subscribing failed; retrying on the next reconnect",
        );
      } finally {
        this.resubscribing = false;
      }
    }
    this.notifyIfBothReady();
  }

  private notifyIfBothReady(): void {
    if (!this.missed || this.closed || this.resubscribing) return;
    if (this.client.status !== "ready" || this.sub.status !== "ready") return;
    this.missed = false;
    for (const l of [...this.reconnectListeners]) {
      try {
        l();
      } catch (e) {
        this.logger.error(
          { err: e },
          "state store: a reconnect listener threw",
        );
      }
    }
  }

  private unavailable(
    command: string,
    e: unknown,
    conn: Redis = this.client,
  ): GatewayError {
    if (isGatewayError(e)) return e;
    const lastSeen =
      conn.status === "ready" ? undefined : this.lastError.get(conn);
    const last = lastSeen === reason(e) ? undefined : lastSeen;
    return new GatewayError(
      "TG_ERR_STATE_UNAVAILABLE",
      `the state store is unavailable: Redis at ${this.display} failed ${command}: ${reason(e)}${last ? ` (last connection error: ${last})` : ""}. ` +
        "Check that Redis is reachable (state.redis_url / TOOLGATE_REDIS_URL); requests that need shared state fail until it is back.",
      { command, redis: this.display },
      { cause: e },
    );
  }

  private async run<T>(
    command: string,
    fn: (c: Redis) => Promise<T>,
    conn: Redis = this.client,
  ): Promise<T> {
    if (this.closed)
      throw new GatewayError(
        "TG_ERR_STATE_UNAVAILABLE",
        "the state store is closed",
      );
    this.count++;
    const started = Date.now();
    try {
      const firstOutcomeOf =
        conn === this.client ? this.clientFirstReady : this.subFirstReady;
      await whenReady(
        conn,
        this.settled.has(conn),
        firstOutcomeOf,
        COMMAND_TIMEOUT_MS,
      );
      return await withDeadline(
        fn(conn),
        COMMAND_TIMEOUT_MS - (Date.now() - started),
        command,
      );
    } catch (e) {
      throw this.unavailable(command, e, conn);
    }
  }

  private async script(
    s: Script,
    key: string,
    args: (string | number)[],
  ): Promise<unknown> {
    return this.run("EVALSHA", async (c) => {
      try {
        return await c.evalsha(s.sha, 1, key, ...args);
      } catch (e) {
        // NOSCRIPT means the server did not run it (a restarted or flushed script cache): safe to send the source.
        if (!reason(e).startsWith("NOSCRIPT")) throw e;
        this.count++;
        return await c.eval(s.lua, 1, key, ...args);
      }
    });
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.run("GET", (c) => c.get(key))) ?? undefined;
  }

  async write(
    key: string,
    dataJson: string,
    ttlMs: number | undefined,
    expectedRev: number | undefined,
  ): Promise<WriteResult> {
    const reply = (await this.script(WRITE, key, [
      dataJson,
      ttlMs ?? "",
      expectedRev ?? "",
    ])) as [number, number, unknown?];
    const [ok, rev, current] = reply;
    return {
      ok: ok === 1,
      rev: Number(rev),
      current: typeof current === "string" ? current : undefined,
    };
  }

  async del(key: string): Promise<boolean> {
    return (await this.run("DEL", (c) => c.del(key))) > 0;
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.run("GETDEL", (c) => c.getdel(key))) ?? undefined;
  }

  async scan(prefix: string): Promise<[string, string][]> {
    const pattern = `${globEscape(prefix)}*`;
    const keys = new Set<string>(); // SCAN may return a key more than once
    let cursor = "0";
    do {
      const [next, batch] = await this.run("SCAN", (c) =>
        c.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT),
      );
      cursor = next;
      for (const k of batch) keys.add(k);
    } while (cursor !== "0");
    const all = [...keys];
    const out: [string, string][] = [];
    for (let i = 0; i < all.length; i += MGET_BATCH) {
      const chunk = all.slice(i, i + MGET_BATCH);
      const values = await this.run("MGET", (c) => c.mget(...chunk));
      chunk.forEach((k, j) => {
        const v = values[j];
        if (typeof v === "string") out.push([k, v]); // null: expired or deleted since SCAN
      });
    }
    return out;
  }

  async incr(
    key: string,
    by: number,
    ttlMs: number | undefined,
  ): Promise<number> {
    return Number(await this.script(INCR, key, [by, ttlMs ?? ""]));
  }

  async lockAcquire(
    key: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    return (
      (await this.run("SET NX", (c) =>
        c.set(key, owner, "PX", ttlMs, "NX"),
      )) === "OK"
    );
  }

  async lockRelease(key: string, owner: string): Promise<boolean> {
    return Number(await this.script(RELEASE, key, [owner])) === 1;
  }

  async lockExtend(
    key: string,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    return Number(await this.script(EXTEND, key, [owner, ttlMs])) === 1;
  }

  async publish(channel: string, payload: string): Promise<void> {
    await this.run("PUBLISH", (c) => c.publish(channel, payload));
  }

  async subscribe(channel: string): Promise<void> {
    // Wanted from now on, even if this attempt fails: the next "ready" subscribes it.
    this.channels.add(channel);
    await this.run("SUBSCRIBE", (c) => c.subscribe(channel), this.sub);
  }

  async unsubscribe(channel: string): Promise<void> {
    this.channels.delete(channel);
    if (this.closed || this.sub.status !== "ready") return; // not subscribed on any live connection
    await this.run("UNSUBSCRIBE", (c) => c.unsubscribe(channel), this.sub);
  }

  onMessage(listener: (channel: string, payload: string) => void): void {
    this.messageListeners.push(listener);
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  async ping(): Promise<void> {
    await this.run("PING", (c) => c.ping());
  }

  commands(): number {
    return this.count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reconnectListeners.clear();
    await Promise.all(
      [this.client, this.sub].map(async (conn) => {
        if (conn.status !== "ready") {
          conn.disconnect();
          return;
        }
        try {
          await withDeadline(conn.quit(), COMMAND_TIMEOUT_MS, "QUIT");
        } catch {
          conn.disconnect();
        }
      }),
    );
  }
}
