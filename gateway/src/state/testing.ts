/**
 * Stores for tests of the shared-state services: a "fleet" is a backend (a memory hub, or the
 * real Redis) plus a unique namespace; `open(podId)` gives another pod on it. Shipped in the
 * package so other components' tests (mcp, api) can run multi-pod scenarios the same way.
 */
import { Redis } from "ioredis";
import pino from "pino";

import { createStateStore } from "./create.js";
import { MemoryHub } from "./memory-backend.js";
import { globEscape } from "./redis-backend.js";
import type { StateStore } from "./types.js";

export interface TestFleet {
  readonly kind: "memory" | "redis";
  readonly namespace: string;
  open(podId: string): StateStore;
  /** Closes every store opened here and deletes the namespace's keys (never FLUSHALL). */
  close(): Promise<void>;
}

let seq = 0;
const silent = pino({ level: "silent" });

export const TEST_REDIS_URL =
  process.env.TOOLGATE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

function namespace(): string {
  return `tgtest-${process.pid}-${Date.now().toString(36)}-${++seq}`;
}

export function memoryFleet(): TestFleet {
  const hub = new MemoryHub();
  const ns = namespace();
  const opened: StateStore[] = [];
  return {
    kind: "memory",
    namespace: ns,
    open(podId) {
      const s = createStateStore({
        logger: silent,
        namespace: ns,
        podId,
        memoryHub: hub,
      });
      opened.push(s);
      return s;
    },
    async close() {
      await Promise.all(opened.map((s) => s.close()));
    },
  };
}

/** Deletes every key under `<namespace>:` with SCAN + DEL. */
export async function deleteNamespace(redis: Redis, ns: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, batch] = await redis.scan(
      cursor,
      "MATCH",
      `${globEscape(ns)}:*`,
      "COUNT",
      1000,
    );
    cursor = next;
    if (batch.length > 0) await redis.del(...batch);
  } while (cursor !== "0");
}

export function redisFleet(url: string = TEST_REDIS_URL): TestFleet {
  const ns = namespace();
  const opened: StateStore[] = [];
  return {
    kind: "redis",
    namespace: ns,
    open(podId) {
      const s = createStateStore({
        redisUrl: url,
        logger: silent,
        namespace: ns,
        podId,
      });
      opened.push(s);
      return s;
    },
    async close() {
      await Promise.all(opened.map((s) => s.close()));
      const admin = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        await deleteNamespace(admin, ns);
      } finally {
        admin.disconnect();
      }
    },
  };
}

export const fleets = [
  ["memory", memoryFleet],
  ["redis", redisFleet],
] as const;
