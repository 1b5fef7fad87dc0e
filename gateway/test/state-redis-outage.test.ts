/**
 * Redis outages against our own redis-server child (never the shared one): killed mid-traffic,
 * absent at startup, and frozen (SIGSTOP). The restartable server keeps an fsync-always AOF in
 * a temp dir, so "no acknowledged write lost" is about the gateway: it never acknowledges a
 * write Redis did not acknowledge, and never replays one it reported as failed.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";

import { createStateStore } from "../src/state/create.js";
import { createToolSnapshots } from "../src/state/tool-snapshots.js";
import type { StateStore } from "../src/state/types.js";
import { durableArgs, spawnRedisServer } from "./fixtures/redis-server.js";

const logger = pino({ level: "silent" });
const BOUND_MS = 1200;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() =>
        resolve(typeof addr === "object" && addr ? addr.port : 0),
      );
    });
  });
}

const children = new Set<ChildProcess>();
const dirs: string[] = [];
const stores: StateStore[] = [];

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = await spawnRedisServer(durableArgs(port, dir));
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

function open(port: number, namespace = "outage"): StateStore {
  const s = createStateStore({
    redisUrl: `redis://127.0.0.1:${port}`,
    logger,
    namespace,
    podId: "pod-a",
  });
  stores.push(s);
  return s;
}

/** Runs `op`, expects TG_ERR_STATE_UNAVAILABLE, and returns how long the failure took. */
async function failureTime(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await expect(op()).rejects.toMatchObject({
    code: "TG_ERR_STATE_UNAVAILABLE",
    status: 503,
  });
  return performance.now() - t0;
}

/** Polls ping until it resolves; returns the time it took, or throws after `limitMs`. */
async function recoveryTime(
  store: StateStore,
  limitMs: number,
): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    try {
      await store.ping();
      return performance.now() - t0;
    } catch {
      if (performance.now() - t0 > limitMs)
        throw new Error(`not recovered within ${limitMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all([...children].map(kill));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "toolgate-redis-"));
  dirs.push(d);
  return d;
}

describe("Redis store during a Redis outage", () => {
  it("fails fast while Redis is down, recovers within 5 s of its return, and loses no acknowledged write", async () => {
    const port = await freePort();
    const dir = tempDir();
    const first = await startRedis(port, dir);
    const store = open(port);
    const peer = open(port);
    let reconnects = 0;
    store.onReconnect(() => reconnects++);
    const received: unknown[] = [];
    await store.subscribe("events:t", (m) => received.push(m));
    await store.ping();

    for (let i = 0; i < 20; i++) await store.increment("count:calls");

    // Traffic in flight while Redis dies: remember exactly what was acknowledged.
    const acked: string[] = [];
    let writing = true;
    const traffic = (async () => {
      for (let i = 0; writing; i++) {
        try {
          await store.set(`kv:${i}`, { i });
          acked.push(`kv:${i}`);
        } catch {
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    })();
    while (acked.length < 50) await new Promise((r) => setTimeout(r, 5));
    await kill(first);

    const times = [
      await failureTime(() => store.get("kv:0")),
      await failureTime(() => store.set("kv:x", 1)),
      await failureTime(() => store.increment("count:calls")),
      await failureTime(() => store.publish("events:t", "lost")),
      await failureTime(() => store.list("kv:")),
      await failureTime(() => store.lock("l", { ttlMs: 1000 })),
      await failureTime(() => store.ping()),
    ];
    expect(Math.max(...times)).toBeLessThan(BOUND_MS);
    // Ten increments refused during the outage must never be executed later.
    for (let i = 0; i < 10; i++)
      await failureTime(() => store.increment("count:calls"));
    writing = false;
    await traffic;

    await startRedis(port, dir);
    expect(await recoveryTime(store, 5000)).toBeLessThan(5000);
    await recoveryTime(peer, 5000);

    for (const key of acked) expect(await store.get(key), key).toBeDefined();
    expect(await store.counter("count:calls")).toBe(20);

    // The subscription came back on its own, and listeners were told to resync.
    await peer.publish("events:t", "after");
    while (!received.includes("after"))
      await new Promise((r) => setTimeout(r, 10));
    expect(received).not.toContain("lost");
    expect(reconnects).toBeGreaterThanOrEqual(1);
  });

  it("publishes a tool list that changed during the outage once Redis is back", async () => {
    const port = await freePort();
    const dir = tempDir();
    const first = await startRedis(port, dir);
    const [storeA, storeB] = [open(port), open(port)];
    const a = createToolSnapshots({ store: storeA, podId: "pod-a", logger });
    const b = createToolSnapshots({ store: storeB, podId: "pod-b", logger });
    try {
      await Promise.all([a.start(), b.start()]);
      await a.publish("github", [{ name: "v1" }]);
      await b.resync();
      await kill(first);
      await expect(a.publish("github", [{ name: "v2" }])).rejects.toMatchObject(
        { code: "TG_ERR_STATE_UNAVAILABLE" },
      );
      const seen = new Promise((resolve) =>
        b.onChange(
          (client, snap) => snap?.tools[0]?.name === "v2" && resolve(client),
        ),
      );
      await startRedis(port, dir);
      expect(await seen).toBe("github");
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("starts without Redis, reports unavailable until Redis starts, then works", async () => {
    const port = await freePort();
    const store = open(port);
    expect(await failureTime(() => store.ping())).toBeLessThan(BOUND_MS);
    expect(await failureTime(() => store.set("kv:a", 1))).toBeLessThan(
      BOUND_MS,
    );
    // A subscription made while Redis is away becomes active when it arrives.
    const got = new Promise(
      (resolve) => void store.subscribe("events:s", resolve),
    );
    await startRedis(port, tempDir());
    await recoveryTime(store, 5000);
    await store.set("kv:a", 1);
    expect((await store.get("kv:a"))?.value).toBe(1);
    const peer = open(port);
    await recoveryTime(peer, 5000);
    for (let i = 0; ; i++) {
      await peer.publish("events:s", "hello");
      const r = await Promise.race([
        got,
        new Promise((r) => setTimeout(() => r(undefined), 100)),
      ]);
      if (r === "hello") break;
      if (i > 30) throw new Error("subscription never became active");
    }
  });

  it("times a command out within the bound when Redis stops answering, and recovers when it resumes", async () => {
    const port = await freePort();
    const server = await startRedis(port, tempDir());
    const store = open(port);
    await store.set("kv:a", 1);
    server.kill("SIGSTOP");
    try {
      expect(await failureTime(() => store.get("kv:a"))).toBeLessThan(BOUND_MS);
      expect(await failureTime(() => store.ping())).toBeLessThan(BOUND_MS);
    } finally {
      server.kill("SIGCONT");
    }
    await recoveryTime(store, 5000);
    expect((await store.get("kv:a"))?.value).toBe(1);
  });
});
