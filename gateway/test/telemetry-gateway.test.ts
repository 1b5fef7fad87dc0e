/**
 * Telemetry through the whole gateway (the real runtime and app): a tool call through /mcp to
 * server-everything, chat requests through the fake provider (one priced success, one upstream
 * 500), a client that cannot start, PATCH /config changing the custom labels, and /metrics
 * behind server.auth. Every figure is read back from /metrics with a real parser.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import {
  completion,
  type FakeProvider,
  startFakeProvider,
} from "./fixtures/fake-provider.js";
import {
  type RunningGateway,
  startGatewayApp,
} from "./fixtures/gateway-app.js";
import { everythingStdio } from "./fixtures/servers.js";
import { type Family, parseMetrics, type Sample } from "./telemetry-fixture.js";

const AUTH = { username: "ops", password: "metrics-pass-1" };
const authHeader = `Basic ${Buffer.from(`${AUTH.username}:${AUTH.password}`).toString("base64")}`;

let fake: FakeProvider;
let g: RunningGateway;

async function scrape(): Promise<Map<string, Family>> {
  const res = await fetch(`${g.base}/metrics`, {
    headers: { authorization: authHeader },
  });
  expect(res.status).toBe(200);
  return parseMetrics(await res.text());
}

function find(
  m: Map<string, Family>,
  name: string,
  labels: Record<string, string>,
): Sample[] {
  return (m.get(name)?.metrics ?? []).filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<number> {
  const res = await fetch(`${g.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

describe("telemetry through the whole gateway", () => {
  beforeAll(async () => {
    fake = await startFakeProvider();
    g = await startGatewayApp({
      server: { auth: AUTH },
      client: { prometheus_labels: ["team"] },
      providers: {
        fake: {
          base_url: fake.url,
          prices: {
            "gpt-test": { input_per_million: 1000, output_per_million: 2000 },
          },
        },
      },
      mcp: {
        client_configs: [
          everythingStdio("everything", { tools_to_execute: ["echo"] }),
          // A server that exits at once: it never reaches "connected".
          {
            name: "broken",
            connection_type: "stdio",
            stdio_config: {
              command: process.execPath,
              args: ["-e", "process.exit(3)"],
            },
            tools_to_execute: ["*"],
          },
        ],
      },
    });
    await g.runtime.upstream.waitConnected("everything", 20_000);
  });

  afterAll(async () => {
    await g?.close();
    await fake?.close();
  });

  test("a tool call through /mcp shows in the HTTP and MCP metrics", async () => {
    const status = await post(
      "/mcp",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "everything_echo", arguments: { message: "hi" } },
      },
      { "x-bf-prom-team": "blue" },
    );
    expect(status).toBe(200);
    const m = await scrape();
    expect(
      find(m, "http_requests_total", {
        path: "/mcp",
        method: "POST",
        status: "200",
        team: "blue",
      }).map((s) => s.value),
    ).toEqual(["1"]);
    expect(
      find(m, "mcp_tool_calls_total", { tool: "echo", status: "success" }).map(
        (s) => [s.labels.client, s.value],
      ),
    ).toEqual([["everything", "1"]]);
    expect(
      find(m, "mcp_tool_call_duration_seconds", { tool: "echo" }).map(
        (s) => s.count,
      ),
    ).toEqual(["1"]);
    expect(
      find(m, "mcp_client_state", {
        client: "everything",
        state: "connected",
      }).map((s) => s.value),
    ).toEqual(["1"]);
    expect(
      Number(find(m, "mcp_tools", { client: "everything" })[0]?.value),
    ).toBeGreaterThan(0);
  });

  test("a client that cannot start is exported in exactly one state, not connected", async () => {
    const m = await scrape();
    const states = find(m, "mcp_client_state", { client: "broken" });
    expect(states.filter((s) => s.value === "1")).toHaveLength(1);
    expect(
      find(m, "mcp_client_state", { client: "broken", state: "connected" }).map(
        (s) => s.value,
      ),
    ).toEqual(["0"]);
  });

  test("chat requests record provider calls, tokens, cost and upstream errors with the custom label", async () => {
    fake.push({
      body: completion({
        content: "hello",
        usage: { prompt: 1000, completion: 500 },
        model: "gpt-test",
      }),
    });
    fake.push({
      status: 500,
      body: { error: { message: "upstream broke", type: "server_error" } },
    });
    const chat = {
      model: "fake/gpt-test",
      messages: [{ role: "user", content: "hi" }],
    };
    expect(
      await post("/v1/chat/completions", chat, { "x-bf-prom-team": "blue" }),
    ).toBe(200);
    expect(
      await post("/v1/chat/completions", chat, { "x-bf-prom-team": "red" }),
    ).toBeGreaterThanOrEqual(500);
    const m = await scrape();
    const call = { provider: "fake", model: "gpt-test", method: "chat" };
    expect(
      find(m, "gateway_upstream_requests_total", call)
        .map((s) => [s.labels.team, s.value])
        .sort(),
    ).toEqual([
      ["blue", "1"],
      ["red", "1"],
    ]);
    expect(
      find(m, "gateway_success_requests_total", { ...call, team: "blue" }).map(
        (s) => s.value,
      ),
    ).toEqual(["1"]);
    expect(
      find(m, "gateway_input_tokens_total", { ...call, team: "blue" }).map(
        (s) => s.value,
      ),
    ).toEqual(["1000"]);
    expect(
      find(m, "gateway_output_tokens_total", { ...call, team: "blue" }).map(
        (s) => s.value,
      ),
    ).toEqual(["500"]);
    // 1000 x 1000 / 1e6 + 500 x 2000 / 1e6 = 2 USD
    expect(
      find(m, "gateway_cost_total", { ...call, team: "blue" }).map((s) =>
        Number(s.value),
      ),
    ).toEqual([2]);
    const errors = find(m, "gateway_error_requests_total", {
      ...call,
      team: "red",
    });
    expect(errors.map((s) => [s.labels.reason, s.value])).toEqual([
      ["http_500", "1"],
    ]);
    expect(
      find(m, "gateway_upstream_latency_seconds", {
        ...call,
        team: "red",
        is_success: "false",
      }).map((s) => s.count),
    ).toEqual(["1"]);
    expect(
      find(m, "http_requests_total", {
        path: "/v1/chat/completions",
        status: "200",
        team: "blue",
      }).map((s) => s.value),
    ).toEqual(["1"]);
  });

  test("PATCH /config changes the custom labels at runtime; MCP metrics keep their values", async () => {
    const res = await fetch(`${g.base}/config`, {
      method: "PATCH",
      headers: {
        "content-type": "application/json",
        authorization: authHeader,
      },
      body: JSON.stringify({ client: { prometheus_labels: ["tenant"] } }),
    });
    expect(res.status).toBeLessThan(300);
    await res.arrayBuffer();
    await post(
      "/mcp",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "everything_echo", arguments: { message: "again" } },
      },
      { "x-bf-prom-tenant": "acme", "x-bf-prom-team": "blue" },
    );
    const m = await scrape();
    const http = m.get("http_requests_total")!.metrics;
    expect(
      http.every((s) => "tenant" in s.labels && !("team" in s.labels)),
    ).toBe(true);
    expect(
      find(m, "http_requests_total", { path: "/mcp", tenant: "acme" }).map(
        (s) => s.value,
      ),
    ).toEqual(["1"]);
    expect(
      find(m, "mcp_tool_calls_total", {
        client: "everything",
        tool: "echo",
        status: "success",
      }).map((s) => s.value),
    ).toEqual(["2"]);
  });

  test("/metrics asks for Basic auth when server.auth is set", async () => {
    const res = await fetch(`${g.base}/metrics`);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect(await res.text()).not.toContain("http_requests_total");
  });
});
