import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import {
  clientHealthKey,
  oauthKey,
  RedisStatusSource,
} from "../src/status/redis-status-source.js";
import { ApiServerDouble } from "./api-server-double.js";
import {
  CLIENTS,
  condition,
  eventually,
  mcpClient,
  startOperator,
} from "./helpers.js";

const URL = "redis://127.0.0.1:6379";

describe("RedisStatusSource against the real Redis", () => {
  const prefix = `toolgate-test-${randomUUID()}:`;
  let redis: Redis;
  let source: RedisStatusSource;

  beforeAll(() => {
    redis = new Redis(URL);
    source = new RedisStatusSource(URL, prefix);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await source.close();
    await redis.quit();
  });

  // The gateway's ClientHealthReport in its store envelope (gateway/src/state/keys.ts).
  const report = (
    pod: string,
    state: string,
    extra: Record<string, unknown> = {},
  ) =>
    JSON.stringify({
      v: 1,
      rev: 3,
      data: {
        client: "x",
        pod,
        state,
        consecutiveFailures: 0,
        lastCheck: "2026-01-01T00:00:00Z",
        since: "2026-01-01T00:00:00Z",
        toolCount: 2,
        tools: ["b", "a"],
        updatedAt: "2026-01-01T00:00:00Z",
        ...extra,
      },
    });
  const put = (client: string, pod: string, text: string) =>
    redis.set(clientHealthKey(prefix, client, pod), text, "PX", 60_000);

  it("reads every pod's report of a client and the OAuth status, from versioned JSON", async () => {
    await put(
      "web_search",
      "gw-1",
      report("gw-1", "disconnected", { lastError: "ECONNREFUSED" }),
    );
    await put("web_search", "gw-0", report("gw-0", "connected"));
    // A client whose name starts the same must not leak in.
    await put("web_search2", "gw-0", report("gw-0", "error"));
    await redis.set(
      oauthKey(prefix, "web_search"),
      JSON.stringify({
        v: 1,
        rev: 1,
        data: { status: "pending", authorizeUrl: "https://auth/x" },
      }),
    );
    const rt = await source.read("web_search");
    expect(rt.pods.map((p) => [p.pod, p.state, p.lastError])).toEqual([
      ["gw-0", "connected", undefined],
      ["gw-1", "disconnected", "ECONNREFUSED"],
    ]);
    expect(rt.oauth).toEqual({
      status: "pending",
      authorizeUrl: "https://auth/x",
    });
  });

  it("returns no reports for a client nobody reported", async () => {
    expect(await source.read("nobody")).toEqual({ pods: [] });
  });

  it("skips values of another version or shape instead of failing", async () => {
    await put("mixed", "gw-0", report("gw-0", "connected"));
    await put("mixed", "gw-1", JSON.stringify({ v: 2, data: { pod: "gw-1" } }));
    await put("mixed", "gw-2", "not json");
    await put(
      "mixed",
      "gw-3",
      JSON.stringify({
        v: 1,
        rev: 1,
        data: { pod: "gw-3", state: "sleeping" },
      }),
    );
    await redis.set(
      oauthKey(prefix, "mixed"),
      JSON.stringify({ v: 1, data: { status: "maybe" } }),
    );
    const rt = await source.read("mixed");
    expect(rt.pods.map((p) => p.pod)).toEqual(["gw-0"]);
    expect(rt.oauth).toBeUndefined();
  });

  it("feeds an operator's MCPClient status from what gateways write to Redis", async () => {
    const api = new ApiServerDouble();
    await api.start();
    const op = startOperator(api, source);
    try {
      api.apply(
        CLIENTS,
        mcpClient("from-redis", {
          connectionType: "http",
          connectionString: "https://r.example/mcp",
          toolsToExecute: ["*"],
        }),
      );
      await eventually(() =>
        expect(
          condition(api.get(`${CLIENTS}/from-redis`), "Connected")?.reason,
        ).toBe("NoReports"),
      );
      await put(
        "from_redis",
        "gw-0",
        report("gw-0", "connected", { updatedAt: new Date().toISOString() }),
      );
      await eventually(() => {
        const o = api.get(`${CLIENTS}/from-redis`);
        expect(o?.status).toMatchObject({
          state: "connected",
          toolCount: 2,
          tools: ["a", "b"],
        });
        expect(condition(o, "Ready")?.status).toBe("True");
      });
    } finally {
      await op.stop();
      await api.stop();
    }
  });
});
