/**
 * After an outage the two Redis connections of a store come back in either order. A TCP proxy
 * in front of the shared Redis cuts both, then holds one of them back while the other
 * reconnects at once: the resync that follows a reconnect must wait for both, or a tool list
 * that failed to publish during the outage is never published (a CI flake in
 * state-redis-outage.test.ts, made deterministic here).
 */
import { randomUUID } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";

import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";

import { createStateStore } from "../src/state/create.js";
import { createToolSnapshots } from "../src/state/tool-snapshots.js";
import type { StateStore } from "../src/state/types.js";

const logger = pino({ level: "silent" });
const REDIS = { host: "127.0.0.1", port: 6379 };

type Held = "commands" | "subscriber";

interface CuttingProxy {
  readonly port: number;
  /** Drops every connection; from then on the `held` connection waits `holdMs` before reaching Redis. */
  cut(holdMs: number, held: Held): void;
  close(): Promise<void>;
}

/** The subscriber names itself `<name>:sub` (CLIENT SETNAME) in its first bytes. */
async function cuttingProxy(): Promise<CuttingProxy> {
  const sockets = new Set<Socket>();
  let holdMs = 0;
  let held: Held = "commands";
  const track = (s: Socket): void => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
    s.on("error", () => undefined);
  };
  const server: Server = createServer((downstream) => {
    track(downstream);
    downstream.once("data", (first: Buffer) => {
      downstream.pause();
      const kind: Held = first.includes(":sub") ? "subscriber" : "commands";
      const delay = kind === held ? holdMs : 0;
      setTimeout(() => {
        if (downstream.destroyed) return;
        const upstream = connect(REDIS);
        track(upstream);
        upstream.on("connect", () => {
          upstream.write(first);
          downstream.pipe(upstream).pipe(downstream);
          downstream.resume();
        });
        upstream.on("close", () => downstream.destroy());
        downstream.on("close", () => upstream.destroy());
      }, delay);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("no port");
  return {
    port: address.port,
    cut(ms, which) {
      holdMs = ms;
      held = which;
      for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const stores: StateStore[] = [];
let proxy: CuttingProxy | undefined;

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await proxy?.close();
});

function open(url: string, namespace: string, podId: string): StateStore {
  const s = createStateStore({ redisUrl: url, logger, namespace, podId });
  stores.push(s);
  return s;
}

describe("Redis reconnect order", () => {
  it.each<[string, Held]>([
    ["the subscriber", "commands"],
    ["the command connection", "subscriber"],
  ])(
    "publishes a list that failed during the outage when %s comes back first",
    async (_first, held) => {
      proxy = await cuttingProxy();
      const namespace = `tgtest-order-${randomUUID().slice(0, 8)}`;
      const storeA = open(
        `redis://127.0.0.1:${proxy.port}`,
        namespace,
        "pod-a",
      );
      const storeB = open(
        `redis://${REDIS.host}:${REDIS.port}`,
        namespace,
        "pod-b",
      );
      const a = createToolSnapshots({ store: storeA, podId: "pod-a", logger });
      const b = createToolSnapshots({ store: storeB, podId: "pod-b", logger });
      try {
        await Promise.all([a.start(), b.start()]);
        await a.publish("github", [{ name: "v1" }]);
        await expect.poll(() => b.get("github")?.tools[0]?.name).toBe("v1");

        proxy.cut(600, held); // under COMMAND_TIMEOUT_MS, so the held connection still comes up
        await expect(
          a.publish("github", [{ name: "v2" }]),
        ).rejects.toMatchObject({
          code: "TG_ERR_STATE_UNAVAILABLE",
        });
        await expect
          .poll(() => b.get("github")?.tools[0]?.name, { timeout: 10_000 })
          .toBe("v2");
        expect(a.get("github")?.tools[0]?.name).toBe("v2");
      } finally {
        await b.remove("github").catch(() => undefined); // the shared Redis keeps nothing of ours
        await Promise.all([a.close(), b.close()]);
      }
    },
  );
});
