/**
 * The contract against the real Redis at 127.0.0.1:6379 (CI has one; override with
 * TOOLGATE_TEST_REDIS_URL). Each test uses its own namespace and deletes its keys afterwards;
 * never FLUSHALL, the server is shared.
 */
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll } from "vitest";

import { describeStateStore } from "./contract.js";
import { createStateStore } from "./create.js";
import { globEscape } from "./redis-backend.js";

const url = process.env.TOOLGATE_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const admin = new Redis(url);
afterAll(() => admin.quit());

describeStateStore("redis", {
  open: (namespace) =>
    createStateStore({
      redisUrl: url,
      logger: pino({ level: "silent" }),
      namespace,
      podId: "pod-test",
    }),
  raw: {
    get: async (k) => (await admin.get(k)) ?? undefined,
    put: async (k, text) => {
      await admin.set(k, text);
    },
  },
  fakeTimers: false,
  cleanup: async (namespace) => {
    const keys = await scanAll(`${globEscape(namespace)}:*`);
    if (keys.length > 0) await admin.del(...keys);
  },
});

async function scanAll(pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await admin.scan(
      cursor,
      "MATCH",
      pattern,
      "COUNT",
      1000,
    );
    cursor = next;
    out.push(...batch);
  } while (cursor !== "0");
  return out;
}
