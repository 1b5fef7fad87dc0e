/**
 * `redis+sentinel://` against our own primary and one Sentinel (never the shared Redis): the
 * store asks the Sentinel for the primary and works through it.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createStateStore } from "../src/state/create.js";
import { spawnRedisServer } from "./fixtures/redis-server.js";

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => res(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

const children: ChildProcess[] = [];
let dir = "";
let sentinelPort = 0;

async function start(args: string[], readyText: string): Promise<void> {
  children.push(await spawnRedisServer(args, readyText));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-sentinel-"));
  const primaryPort = await freePort();
  sentinelPort = await freePort();
  await start(
    [
      "--port",
      String(primaryPort),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
    ],
    "Ready to accept connections",
  );
  const conf = join(dir, "sentinel.conf");
  writeFileSync(
    conf,
    `port ${sentinelPort}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor tgprimary 127.0.0.1 ${primaryPort} 1\n`,
  );
  await start([conf, "--sentinel"], "+monitor master tgprimary");
});

afterAll(async () => {
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await exited;
    }),
  );
  rmSync(dir, { recursive: true, force: true });
});

describe("Redis through Sentinel", () => {
  it("finds the primary through the Sentinel and reads and writes there", async () => {
    const store = createStateStore({
      redisUrl: `redis+sentinel://127.0.0.1:${sentinelPort}/tgprimary`,
      logger: pino({ level: "silent" }),
      namespace: "sentinel",
    });
    try {
      await store.set("kv:a", { via: "sentinel" });
      expect((await store.get("kv:a"))?.value).toEqual({ via: "sentinel" });
      let deliver: (m: unknown) => void = () => undefined;
      const got = new Promise((r) => (deliver = r));
      await store.subscribe("events:s", (m) => deliver(m));
      await store.publish("events:s", "hi");
      expect(await got).toBe("hi");
    } finally {
      await store.close();
    }
  });
});
