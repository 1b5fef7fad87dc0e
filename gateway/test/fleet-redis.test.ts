/**
 * Two gateways on our own redis-server (never the shared one): no Redis command at all on
 * repeated tools/list and tools/call when nothing changed (counted with MONITOR), and Redis
 * killed mid-traffic: no crash, tool traffic unaffected, what needs Redis fails fast with 503,
 * /ready flips and comes back, full recovery within 5 s, nothing acknowledged lost.
 */
import { Redis } from "ioredis";
import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  it,
  onTestFinished,
  vi,
} from "vitest";

import type {
  ClientConfigInput,
  GatewayConfigInput,
} from "../src/config/schema.js";
import {
  type FaultHttpServer,
  startFaultHttp,
} from "./fixtures/fault-server.js";
import type { RunningGateway } from "./fixtures/gateway-app.js";
import { faultStdio } from "./fixtures/servers.js";
import {
  api,
  type Json,
  type OwnRedis,
  rpc,
  startOwnRedis,
  startPod,
  toolNames,
  uniqueNamespace,
} from "./fleet-harness.js";

let redis: OwnRedis;
let upstream: FaultHttpServer;
let pods: RunningGateway[] = [];

const http = (name: string, url: string): ClientConfigInput => ({
  name,
  connection_type: "http",
  connection_string: url,
  tools_to_execute: ["*"],
});
// Health checks every hour: nothing periodic of ours runs during the measured window.
const config = (clients: ClientConfigInput[]): GatewayConfigInput => ({
  mcp: {
    client_configs: clients,
    health_monitor_config: { check_interval: "1h" },
  },
});

beforeAll(async () => {
  [redis, upstream] = await Promise.all([startOwnRedis(), startFaultHttp()]);
});

afterEach(async () => {
  await Promise.allSettled(pods.map((p) => p.close()));
  pods = [];
});

afterAll(async () => {
  await Promise.allSettled([redis?.stop(), upstream?.close()]);
});

async function startPair(
  clients: ClientConfigInput[],
): Promise<[RunningGateway, RunningGateway]> {
  const ns = uniqueNamespace();
  pods = [
    await startPod(redis.url, ns, "pod-a", config(clients)),
    await startPod(redis.url, ns, "pod-b", config(clients)),
  ];
  return pods as [RunningGateway, RunningGateway];
}

const echo = (base: string, text: string): Promise<Json> =>
  rpc(base, "tools/call", { name: "svc_echo", arguments: { text } });

describe("the hot path with the Redis store", () => {
  it("sends no Redis command on repeated tools/list and tools/call when nothing changed", async () => {
    const [a, b] = await startPair([faultStdio("svc")]);
    await Promise.all([
      a.runtime.upstream.waitConnected("svc", 30_000),
      b.runtime.upstream.waitConnected("svc", 30_000),
    ]);
    const admin = new Redis(redis.url);
    const monitor = await admin.monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) =>
      seen.push(args.join(" ")),
    );
    try {
      // Let the connect-time writes (snapshot, health report, their pub/sub follow-ups) finish.
      let quietSince = Date.now();
      let count = -1;
      await vi.waitFor(
        () => {
          if (seen.length !== count)
            [count, quietSince] = [seen.length, Date.now()];
          expect(Date.now() - quietSince).toBeGreaterThanOrEqual(300);
        },
        { timeout: 10_000, interval: 50 },
      );
      seen.length = 0;
      for (let i = 0; i < 25; i++) {
        for (const pod of [a, b]) {
          expect(await toolNames(pod.base)).toContain("svc_echo");
          expect((await echo(pod.base, `n${i}`)).result).toMatchObject({
            content: [
              {
                text: JSON.stringify({ tool: "echo", args: { text: `n${i}` } }),
              },
            ],
          });
        }
      }
      // The runtime-client resync (every 30 s, `client:` keys) may fall into the window; it is
      // not caused by the traffic, so it alone is left out.
      expect(seen.filter((c) => !c.includes(":client:"))).toEqual([]);
      // The counting works: a request that does need Redis (the fleet view) shows up.
      await api(a.base, "GET", "/api/mcp/clients");
      await vi.waitFor(() =>
        expect(seen.some((c) => c.includes(":health:"))).toBe(true),
      );
    } finally {
      monitor.disconnect();
      admin.disconnect();
    }
  }, 60_000);
});

describe("Redis killed mid-traffic", () => {
  it("keeps serving tools, fails what needs Redis with 503, flips /ready, and recovers within 5 s with nothing acknowledged lost", async () => {
    const [a, b] = await startPair([]);
    expect(
      (
        await api(
          a.base,
          "POST",
          "/api/mcp/client",
          http("svc", upstream.mcpUrl),
        )
      ).status,
    ).toBe(201);
    for (const pod of [a, b])
      await vi.waitFor(
        async () =>
          expect((await echo(pod.base, "before")).result).toMatchObject({
            content: [{ type: "text" }],
          }),
        { timeout: 5000, interval: 25 },
      );

    // Tool traffic on both pods the whole time: it must never see the outage.
    let stop = false;
    onTestFinished(() => {
      stop = true;
    });
    const failures: string[] = [];
    const traffic = (async () => {
      for (let i = 0; !stop; i++) {
        for (const pod of [a, b]) {
          const r = await echo(pod.base, `t${i}`).catch((err: unknown) => ({
            error: String(err),
          }));
          if (r.result === undefined || r.result.isError === true)
            failures.push(JSON.stringify(r));
        }
      }
    })();

    await redis.kill();
    for (const pod of [a, b])
      await vi.waitFor(
        async () => expect((await fetch(`${pod.base}/ready`)).status).toBe(503),
        { timeout: 5000, interval: 50 },
      );

    const started = performance.now();
    const refused = await api(
      b.base,
      "POST",
      "/api/mcp/client",
      http("later", upstream.mcpUrl),
    );
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe("TG_ERR_STATE_UNAVAILABLE");
    // Fast: bounded by the 1 s command timeout, not by reconnect attempts.
    expect(performance.now() - started).toBeLessThan(2500);

    const list = await api(a.base, "GET", "/api/mcp/clients");
    expect(list.status).toBe(200);
    const local = (list.json.clients as Json[]).find((c) => c.id === "svc");
    expect(local).toMatchObject({
      state: "connected",
      fleet: { available: false },
    });

    await redis.restart();
    const back = performance.now();
    for (const pod of [a, b])
      await vi.waitFor(
        async () => expect((await fetch(`${pod.base}/ready`)).status).toBe(200),
        { timeout: 5000, interval: 50 },
      );
    // Until B's store is back the POST is refused with 503 (nothing written), so retrying is safe.
    await vi.waitFor(
      async () =>
        expect(
          (
            await api(
              b.base,
              "POST",
              "/api/mcp/client",
              http("later", upstream.mcpUrl),
            )
          ).status,
        ).toBe(201),
      { timeout: 5000, interval: 100 },
    );
    await vi.waitFor(
      async () =>
        expect(
          (await api(a.base, "GET", "/api/mcp/client/later")).json.fleet
            ?.available,
        ).toBe(true),
      { timeout: 5000, interval: 100 },
    );
    expect(performance.now() - back).toBeLessThan(5000);

    stop = true;
    await traffic;
    expect(failures).toEqual([]);

    // The client acknowledged before the outage is still on both pods and in the store.
    for (const pod of [a, b]) {
      expect((await api(pod.base, "GET", "/api/mcp/client/svc")).status).toBe(
        200,
      );
      expect(await toolNames(pod.base)).toContain("svc_echo");
    }
    expect(
      a.runtime.runtimeClients
        .list()
        .map((c) => c.name)
        .sort(),
    ).toEqual(["later", "svc"]);
  }, 60_000);
});
