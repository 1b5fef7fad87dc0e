import { spawnSync } from "node:child_process";
import { Readable } from "node:stream";

import { afterEach, describe, expect, test } from "vitest";

import { GatewayConfig } from "../src/config/schema.js";
import {
  BASE_LABELS,
  pricesFromConfig,
  type ProviderCallResult,
} from "../src/telemetry/index.js";
import {
  AUTH,
  type Family,
  requireExecutable,
  type Sample,
  send,
  series,
  startApp,
  type TestApp,
  testWithTool,
} from "./telemetry-fixture.js";

let current: TestApp | undefined;
async function app(
  options: Parameters<typeof startApp>[0] = {},
): Promise<TestApp> {
  current = await startApp(options);
  return current;
}
afterEach(async () => {
  await current?.close();
  current = undefined;
});

/** Label values of the samples, with counters' values (or histograms' count/sum) attached. */
function summarise(samples: readonly Sample[]): {
  labels: Record<string, string>;
  value?: number;
  count?: number;
  sum?: number;
}[] {
  return samples.map((s) =>
    s.value !== undefined
      ? { labels: s.labels, value: Number(s.value) }
      : { labels: s.labels, count: Number(s.count), sum: Number(s.sum) },
  );
}

function only(
  families: Map<string, Family>,
  name: string,
): ReturnType<typeof summarise>[number] {
  const all = summarise(series(families, name));
  expect(all, `${name} has exactly one series`).toHaveLength(1);
  return all[0]!;
}

describe("HTTP metrics (SPEC 11.1)", () => {
  test.each([
    {
      name: "a parameterised route by its pattern",
      method: "GET",
      path: "/items/42",
      labels: { path: "/items/:id", method: "GET", status: "200" },
    },
    {
      name: "an unknown URL as the fixed path 'unmatched'",
      method: "GET",
      path: "/no/such/route?x=1",
      labels: { path: "unmatched", method: "GET", status: "404" },
    },
    {
      name: "a POST with its method",
      method: "POST",
      path: "/echo",
      labels: { path: "/echo", method: "POST", status: "200" },
    },
    {
      name: "a failing handler with status 500",
      method: "GET",
      path: "/fail",
      labels: { path: "/fail", method: "GET", status: "500" },
    },
  ])("records $name", async ({ method, path, labels }) => {
    const t = await app();
    const init: RequestInit =
      method === "POST"
        ? {
            method,
            body: "{}",
            headers: { "content-type": "application/json" },
          }
        : { method };
    await send(`${t.url}${path}`, init);
    await send(`${t.url}${path}`, init);
    const m = await t.scrape();
    expect(summarise(series(m, "http_requests_total"))).toEqual([
      { labels, value: 2 },
    ]);
    for (const name of [
      "http_request_duration_seconds",
      "http_request_size_bytes",
      "http_response_size_bytes",
    ]) {
      expect(only(m, name)).toMatchObject({ labels, count: 2 });
    }
  });

  test("never exports the raw URL as a label value", async () => {
    const t = await app();
    for (const id of ["1", "2", "abc"]) await send(`${t.url}/items/${id}`);
    await send(`${t.url}/random-${Date.now()}`);
    const text = await t.scrapeText();
    expect(text).not.toMatch(/path="\/items\/(1|2|abc)"/);
    expect(text).not.toContain("random-");
    expect(
      summarise(series(await t.scrape(), "http_requests_total")).map(
        (s) => s.labels.path,
      ),
    ).toEqual(expect.arrayContaining(["/items/:id", "unmatched", "/metrics"]));
  });

  test.each([
    {
      name: "Content-Length",
      init: {
        method: "POST",
        body: "x".repeat(300),
        headers: { "content-type": "text/plain" },
      },
      bytes: 300,
    },
    {
      name: "the received body of a chunked upload",
      init: {
        method: "POST",
        body: Readable.toWeb(Readable.from(["hello", " world"])),
        duplex: "half",
        headers: { "content-type": "text/plain" },
      },
      bytes: 11,
    },
  ])("measures the request size from $name", async ({ init, bytes }) => {
    const t = await app();
    await send(`${t.url}/echo`, init as RequestInit);
    const m = await t.scrape();
    expect(only(m, "http_request_size_bytes")).toMatchObject({
      count: 1,
      sum: bytes,
    });
    // /echo answers the body back, so the response has the same size.
    expect(only(m, "http_response_size_bytes")).toMatchObject({
      count: 1,
      sum: bytes,
    });
  });

  test("counts a streamed response but observes no size for it (its length is unknown)", async () => {
    const t = await app();
    await send(`${t.url}/stream`);
    const m = await t.scrape();
    expect(only(m, "http_requests_total")).toEqual({
      labels: { path: "/stream", method: "GET", status: "200" },
      value: 1,
    });
    expect(series(m, "http_response_size_bytes")).toEqual([]);
  });

  test.each([
    {
      name: "a stream the client closes, with the status it was sent",
      path: "/endless",
      status: "200",
    },
    {
      name: "a request the client gives up on before any response, as 499",
      path: "/held",
      status: "499",
    },
  ])("counts $name", async ({ path, status }) => {
    const t = await app();
    const ac = new AbortController();
    const pending = fetch(`${t.url}${path}`, { signal: ac.signal }).then(
      async (res) => res.body?.getReader().read(),
      () => undefined,
    );
    // /endless has sent its headers and a first event once the fetch resolves; /held sends nothing.
    if (path === "/held") await t.heldArrived;
    else await pending;
    ac.abort();
    await pending.catch(() => undefined);
    await expect
      .poll(async () =>
        summarise(series(await t.scrape(), "http_requests_total")).filter(
          (s) => s.labels.path === path,
        ),
      )
      .toEqual([{ labels: { path, method: "GET", status }, value: 1 }]);
    // Released late, the held handler's answer goes nowhere and is not counted again.
    t.release();
    await new Promise((r) => setImmediate(r));
    const m = await t.scrape();
    expect(
      summarise(series(m, "http_requests_total"))
        .filter((s) => s.labels.path === path)
        .map((s) => s.value),
    ).toEqual([1]);
    expect(
      series(m, "http_response_size_bytes").filter(
        (s) => s.labels.path === path,
      ),
    ).toEqual([]);
  });

  test("exports default process metrics from its own registry", async () => {
    const t = await app();
    const m = await t.scrape();
    for (const name of [
      "process_cpu_user_seconds_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_seconds",
    ]) {
      expect(m.has(name), name).toBe(true);
    }
  });
});

describe("custom labels (SPEC 11.3)", () => {
  test("take their values from x-bf-prom-<label> headers, '' when the header is absent", async () => {
    const t = await app({ customLabels: ["team", "env"] });
    await send(`${t.url}/items/1`, { headers: { "x-bf-prom-team": "blue" } });
    await send(`${t.url}/items/1`, {
      headers: { "x-bf-prom-team": "blue", "x-bf-prom-env": "prod" },
    });
    const m = await t.scrape();
    expect(summarise(series(m, "http_requests_total"))).toEqual([
      {
        labels: {
          path: "/items/:id",
          method: "GET",
          status: "200",
          team: "blue",
          env: "",
        },
        value: 1,
      },
      {
        labels: {
          path: "/items/:id",
          method: "GET",
          status: "200",
          team: "blue",
          env: "prod",
        },
        value: 1,
      },
    ]);
  });

  test("customLabelValues reads the current labels from headers and cuts long values", async () => {
    const t = await app({ customLabels: ["team", "Env"] });
    expect(
      t.telemetry.customLabelValues({
        "x-bf-prom-team": "red",
        "x-bf-prom-env": "x".repeat(500),
        "x-bf-prom-other": "no",
      }),
    ).toEqual({
      team: "red",
      Env: "x".repeat(128),
    });
    expect(t.telemetry.customLabelValues({})).toEqual({ team: "", Env: "" });
  });

  test("ignores names that collide with built-in labels or are reserved, and duplicates", async () => {
    const t = await app({
      customLabels: [
        "path",
        "provider",
        "le",
        "__meta",
        "team",
        "team",
        "reason",
      ],
    });
    expect(t.telemetry.customLabels()).toEqual(["team"]);
    expect(
      t.logs.lines.filter((l) => l.level === 40).map((l) => l.label),
    ).toEqual(["path", "provider", "le", "__meta", "reason"]);
  });

  test("change at runtime: custom-labelled series restart under the new label set, other metrics keep their values", async () => {
    const t = await app({ customLabels: ["team"] });
    await send(`${t.url}/items/1`, { headers: { "x-bf-prom-team": "blue" } });
    t.telemetry.mcp.toolCall({
      client: "fs",
      tool: "read",
      status: "success",
      durationSeconds: 0.01,
    });
    t.telemetry.mcp.clientState("fs", "connected");
    t.telemetry.provider.record(
      providerCall({ custom: { team: "blue" }, firstTokenSeconds: 0.2 }),
    );
    const before = await t.scrape();
    expect(only(before, "gateway_upstream_requests_total").labels.team).toBe(
      "blue",
    );

    t.telemetry.setCustomLabels(["tenant"]);
    await send(`${t.url}/items/2`, {
      headers: { "x-bf-prom-tenant": "acme", "x-bf-prom-team": "blue" },
    });
    const after = await t.scrape();
    expect(summarise(series(after, "http_requests_total"))).toEqual([
      {
        labels: {
          path: "/items/:id",
          method: "GET",
          status: "200",
          tenant: "acme",
        },
        value: 1,
      },
    ]);
    expect(series(after, "gateway_upstream_requests_total")).toEqual([]);
    expect(only(after, "mcp_tool_calls_total")).toEqual({
      labels: { client: "fs", tool: "read", status: "success" },
      value: 1,
    });
    expect(
      only(after, "gateway_stream_first_token_latency_seconds"),
    ).toMatchObject({ count: 1 });
    expect(
      summarise(series(after, "mcp_client_state")).find(
        (s) => s.labels.state === "connected",
      )?.value,
    ).toBe(1);
    expect(after.has("process_cpu_user_seconds_total")).toBe(true);

    t.telemetry.provider.record(
      providerCall({ custom: { tenant: "acme", team: "blue" } }),
    );
    expect(
      only(await t.scrape(), "gateway_upstream_requests_total").labels,
    ).toEqual({
      ...baseLabels(),
      tenant: "acme",
    });
  });

  test("setting the same labels again keeps every series", async () => {
    const t = await app({ customLabels: ["team"] });
    await send(`${t.url}/items/1`);
    t.telemetry.setCustomLabels(["team"]);
    const m = await t.scrape();
    expect(only(m, "http_requests_total").value).toBe(1);
  });

  test("applyConfig takes the labels and the price table from a parsed config", async () => {
    const t = await app();
    const config = GatewayConfig.parse({
      client: { prometheus_labels: ["tenant"] },
      providers: {
        openai: {
          base_url: "http://127.0.0.1:1/v1",
          prices: { "gpt-4o": { input_per_million: 2, output_per_million: 8 } },
        },
      },
    });
    t.telemetry.applyConfig(config);
    t.telemetry.provider.record(
      providerCall({
        custom: { tenant: "a" },
        inputTokens: 1_000_000,
        outputTokens: 500_000,
      }),
    );
    const m = await t.scrape();
    expect(t.telemetry.customLabels()).toEqual(["tenant"]);
    expect(only(m, "gateway_cost_total")).toEqual({
      labels: { ...baseLabels(), tenant: "a" },
      value: 6,
    });
  });
});

function baseLabels(
  overrides: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of BASE_LABELS) out[name] = "";
  return {
    ...out,
    provider: "openai",
    model: "gpt-4o",
    method: "chat",
    number_of_retries: "0",
    fallback_index: "0",
    ...overrides,
  };
}

function providerCall(
  overrides: Partial<ProviderCallResult> = {},
): ProviderCallResult {
  return {
    labels: { provider: "openai", model: "gpt-4o", method: "chat" },
    custom: {},
    success: true,
    latencySeconds: 0.5,
    ...overrides,
  };
}

describe("provider recorder (SPEC 11.2)", () => {
  const prices = pricesFromConfig(
    GatewayConfig.parse({
      providers: {
        openai: {
          base_url: "http://127.0.0.1:1/v1",
          prices: {
            "gpt-4o": { input_per_million: 2.5, output_per_million: 10 },
          },
        },
      },
    }),
  );
  const fullLabels = {
    provider: "openai",
    model: "gpt-4o",
    method: "chat",
    virtual_key_id: "vk-1",
    virtual_key_name: "team-a",
    routing_engines_used: "routing-rule,governance",
    routing_rule_id: "r1",
    routing_rule_name: "cheap-first",
    selected_key_id: "k1",
    selected_key_name: "primary",
    number_of_retries: 2,
    fallback_index: 1,
  };
  const full = baseLabels({
    ...fullLabels,
    number_of_retries: "2",
    fallback_index: "1",
  });
  type Expected = Record<
    string,
    {
      labels: Record<string, string>;
      value?: number;
      count?: number;
      sum?: number;
    }[]
  >;

  test.each<{ name: string; call: ProviderCallResult; expected: Expected }>([
    {
      name: "a successful call counts a request, a success, latency, tokens and cost",
      call: providerCall({
        labels: fullLabels,
        custom: { team: "blue" },
        latencySeconds: 0.3,
        inputTokens: 1000,
        outputTokens: 500,
      }),
      expected: {
        gateway_upstream_requests_total: [
          { labels: { ...full, team: "blue" }, value: 1 },
        ],
        gateway_success_requests_total: [
          { labels: { ...full, team: "blue" }, value: 1 },
        ],
        gateway_error_requests_total: [],
        gateway_upstream_latency_seconds: [
          {
            labels: { ...full, team: "blue", is_success: "true" },
            count: 1,
            sum: 0.3,
          },
        ],
        gateway_input_tokens_total: [
          { labels: { ...full, team: "blue" }, value: 1000 },
        ],
        gateway_output_tokens_total: [
          { labels: { ...full, team: "blue" }, value: 500 },
        ],
        gateway_cost_total: [
          { labels: { ...full, team: "blue" }, value: 0.0075 },
        ],
        gateway_cache_hits_total: [],
        gateway_stream_first_token_latency_seconds: [],
      },
    },
    {
      name: "a failed call counts an error with its reason and latency with is_success=false",
      call: providerCall({
        success: false,
        reason: "http_500",
        latencySeconds: 1.5,
      }),
      expected: {
        gateway_upstream_requests_total: [
          { labels: { ...baseLabels(), team: "" }, value: 1 },
        ],
        gateway_success_requests_total: [],
        gateway_error_requests_total: [
          {
            labels: { ...baseLabels(), team: "", reason: "http_500" },
            value: 1,
          },
        ],
        gateway_upstream_latency_seconds: [
          {
            labels: { ...baseLabels(), team: "", is_success: "false" },
            count: 1,
            sum: 1.5,
          },
        ],
        gateway_input_tokens_total: [],
        gateway_cost_total: [],
      },
    },
    {
      name: "a failure without a reason is counted with reason 'unknown'",
      call: providerCall({ success: false }),
      expected: {
        gateway_error_requests_total: [
          {
            labels: { ...baseLabels(), team: "", reason: "unknown" },
            value: 1,
          },
        ],
      },
    },
    {
      name: "a model without a price counts tokens but no cost",
      call: providerCall({
        labels: { provider: "openai", model: "unpriced", method: "chat" },
        inputTokens: 10,
        outputTokens: 0,
      }),
      expected: {
        gateway_input_tokens_total: [
          {
            labels: { ...baseLabels({ model: "unpriced" }), team: "" },
            value: 10,
          },
        ],
        gateway_output_tokens_total: [
          {
            labels: { ...baseLabels({ model: "unpriced" }), team: "" },
            value: 0,
          },
        ],
        gateway_cost_total: [],
      },
    },
    {
      name: "stream latencies carry the base labels only",
      call: providerCall({
        custom: { team: "blue" },
        firstTokenSeconds: 0.25,
        interTokenSeconds: [0.01, 0.02, 0.03],
      }),
      expected: {
        gateway_stream_first_token_latency_seconds: [
          { labels: baseLabels(), count: 1, sum: 0.25 },
        ],
        gateway_stream_inter_token_latency_seconds: [
          { labels: baseLabels(), count: 3, sum: 0.06 },
        ],
      },
    },
  ])("$name", async ({ call, expected }) => {
    const t = await app({ customLabels: ["team"], prices });
    t.telemetry.provider.record(call);
    const m = await t.scrape();
    for (const [name, want] of Object.entries(expected)) {
      const got = summarise(series(m, name));
      expect(
        got.map((s) => s.labels),
        name,
      ).toEqual(want.map((s) => s.labels));
      got.forEach((s, i) => {
        const w = want[i]!;
        if (w.value !== undefined)
          expect(s.value, name).toBeCloseTo(w.value, 9);
        if (w.count !== undefined) expect(s.count, name).toBe(w.count);
        if (w.sum !== undefined) expect(s.sum, name).toBeCloseTo(w.sum, 9);
      });
    }
  });

  test("exports every SPEC 11.2 family with its type, even before any call", async () => {
    const t = await app();
    const m = await t.scrape();
    expect(
      Object.fromEntries(
        [...m.values()]
          .filter((f) => f.name.startsWith("gateway_"))
          .map((f) => [f.name, f.type]),
      ),
    ).toEqual({
      gateway_upstream_requests_total: "COUNTER",
      gateway_success_requests_total: "COUNTER",
      gateway_error_requests_total: "COUNTER",
      gateway_upstream_latency_seconds: "HISTOGRAM",
      gateway_input_tokens_total: "COUNTER",
      gateway_output_tokens_total: "COUNTER",
      gateway_cache_hits_total: "COUNTER",
      gateway_cost_total: "COUNTER",
      gateway_stream_first_token_latency_seconds: "HISTOGRAM",
      gateway_stream_inter_token_latency_seconds: "HISTOGRAM",
    });
  });

  test("setPrices replaces the price table for later calls", async () => {
    const t = await app();
    t.telemetry.provider.record(providerCall({ inputTokens: 1_000_000 }));
    t.telemetry.setPrices(
      new Map([
        [
          "openai",
          new Map([
            ["gpt-4o", { input_per_million: 3, output_per_million: 0 }],
          ]),
        ],
      ]),
    );
    t.telemetry.provider.record(providerCall({ inputTokens: 1_000_000 }));
    const m = await t.scrape();
    expect(only(m, "gateway_cost_total").value).toBe(3);
    expect(only(m, "gateway_input_tokens_total").value).toBe(2_000_000);
  });
});

describe("MCP recorder", () => {
  test("counts tool calls by status and times them per tool", async () => {
    const t = await app();
    const calls = [
      { tool: "read", status: "success", durationSeconds: 0.02 },
      { tool: "read", status: "success", durationSeconds: 0.04 },
      { tool: "read", status: "error", durationSeconds: 0.01 },
      { tool: "write", status: "failure", durationSeconds: 30 },
    ] as const;
    for (const c of calls) t.telemetry.mcp.toolCall({ client: "fs", ...c });
    const m = await t.scrape();
    expect(summarise(series(m, "mcp_tool_calls_total"))).toEqual([
      { labels: { client: "fs", tool: "read", status: "success" }, value: 2 },
      { labels: { client: "fs", tool: "read", status: "error" }, value: 1 },
      { labels: { client: "fs", tool: "write", status: "failure" }, value: 1 },
    ]);
    const durations = summarise(series(m, "mcp_tool_call_duration_seconds"));
    expect(durations.map((d) => [d.labels, d.count])).toEqual([
      [{ client: "fs", tool: "read" }, 3],
      [{ client: "fs", tool: "write" }, 1],
    ]);
    expect(durations[0]!.sum).toBeCloseTo(0.07, 9);
  });

  test.each([
    {
      name: "1 for the current state and 0 for the others",
      states: ["connecting", "connected"],
      want: { connecting: 0, connected: 1, disconnected: 0, error: 0 },
    },
    {
      name: "follows a drop to error",
      states: ["connected", "error"],
      want: { connecting: 0, connected: 0, disconnected: 0, error: 1 },
    },
    {
      name: "includes a state outside SPEC 3.1 once seen",
      states: ["paused", "connected"],
      want: {
        connecting: 0,
        connected: 1,
        disconnected: 0,
        error: 0,
        paused: 0,
      },
    },
  ])("client state gauge is $name", async ({ states, want }) => {
    const t = await app();
    for (const s of states) t.telemetry.mcp.clientState("fs", s);
    const got = Object.fromEntries(
      summarise(series(await t.scrape(), "mcp_client_state")).map((s) => [
        s.labels.state,
        s.value,
      ]),
    );
    expect(got).toEqual(want);
  });

  test("tracks reconnects and tool counts, and a removed client loses its gauges but keeps its counters", async () => {
    const t = await app();
    const { mcp } = t.telemetry;
    mcp.clientState("fs", "connected");
    mcp.clientState("git", "connected");
    mcp.clientReconnect("fs");
    mcp.clientReconnect("fs");
    mcp.clientTools("fs", 12);
    mcp.clientTools("git", 3);
    let m = await t.scrape();
    expect(summarise(series(m, "mcp_client_reconnects_total"))).toEqual([
      { labels: { client: "fs" }, value: 2 },
    ]);
    expect(summarise(series(m, "mcp_tools"))).toEqual([
      { labels: { client: "fs" }, value: 12 },
      { labels: { client: "git" }, value: 3 },
    ]);
    mcp.clientRemoved("fs");
    m = await t.scrape();
    expect(summarise(series(m, "mcp_tools"))).toEqual([
      { labels: { client: "git" }, value: 3 },
    ]);
    expect(
      new Set(series(m, "mcp_client_state").map((s) => s.labels.client)),
    ).toEqual(new Set(["git"]));
    expect(summarise(series(m, "mcp_client_reconnects_total"))).toEqual([
      { labels: { client: "fs" }, value: 2 },
    ]);
  });

  test("records agent iterations and code-mode executions", async () => {
    const t = await app();
    t.telemetry.mcp.agentIterations(3);
    t.telemetry.mcp.agentIterations(12);
    t.telemetry.mcp.codeModeExecution("success");
    t.telemetry.mcp.codeModeExecution("timeout");
    t.telemetry.mcp.codeModeExecution("timeout");
    const m = await t.scrape();
    const iterations = only(m, "agent_iterations");
    expect(iterations).toMatchObject({ labels: {}, count: 2, sum: 15 });
    expect(series(m, "agent_iterations")[0]!.buckets).toMatchObject({
      "3": "1",
      "10": "1",
      "15": "2",
    });
    expect(
      Object.fromEntries(
        summarise(series(m, "code_mode_executions_total")).map((s) => [
          s.labels.status,
          s.value,
        ]),
      ),
    ).toEqual({
      success: 1,
      error: 0,
      timeout: 2,
    });
  });
});

describe("recorders never throw into the caller", () => {
  test.each<{ name: string; act: (t: TestApp) => void; logged: boolean }>([
    {
      name: "a provider result without labels",
      act: (t) =>
        t.telemetry.provider.record({
          custom: {},
        } as unknown as ProviderCallResult),
      logged: true,
    },
    {
      name: "a null provider result",
      act: (t) =>
        t.telemetry.provider.record(null as unknown as ProviderCallResult),
      logged: true,
    },
    {
      name: "NaN and negative figures",
      act: (t) =>
        t.telemetry.provider.record(
          providerCall({
            latencySeconds: Number.NaN,
            inputTokens: -5,
            interTokenSeconds: [Number.NaN],
          }),
        ),
      logged: false,
    },
    {
      name: "a null tool call",
      act: (t) => t.telemetry.mcp.toolCall(null as never),
      logged: true,
    },
    {
      name: "a NaN tool count and negative iterations",
      act: (t) => (
        t.telemetry.mcp.clientTools("fs", Number.NaN),
        t.telemetry.mcp.agentIterations(-1)
      ),
      logged: false,
    },
    {
      name: "an unknown code-mode status",
      act: (t) => t.telemetry.mcp.codeModeExecution("weird" as never),
      logged: false,
    },
  ])("$name", async ({ act, logged }) => {
    const t = await app();
    expect(() => act(t)).not.toThrow();
    const res = await fetch(`${t.url}/metrics`);
    expect(res.status).toBe(200);
    await res.text();
    expect(
      t.logs.lines.some(
        (l) =>
          l.level === 40 &&
          l.msg === "telemetry: a metric could not be recorded",
      ),
    ).toBe(logged);
  });
});

describe("GET /metrics", () => {
  test.each([
    { name: "without credentials", authorization: undefined, status: 401 },
    {
      name: "with a wrong password",
      authorization: `Basic ${Buffer.from(`${AUTH.username}:wrong`).toString("base64")}`,
      status: 401,
    },
    {
      name: "with the configured credentials",
      authorization: `Basic ${Buffer.from(`${AUTH.username}:${AUTH.password}`).toString("base64")}`,
      status: 200,
    },
  ])(
    "behind the admin Basic auth answers $status $name",
    async ({ authorization, status }) => {
      const t = await app({ auth: true });
      const res = await fetch(
        `${t.url}/metrics`,
        authorization === undefined ? {} : { headers: { authorization } },
      );
      const body = await res.text();
      expect(res.status).toBe(status);
      if (status === 200) {
        expect(res.headers.get("content-type")).toBe(
          "text/plain; version=0.0.4; charset=utf-8",
        );
        expect(body).toContain("# TYPE http_requests_total counter");
      } else {
        expect(res.headers.get("www-authenticate")).toMatch(
          /^Basic realm="toolgate"/,
        );
        expect(body).not.toContain("process_cpu");
      }
    },
  );

  testWithTool("promtool")(
    "passes promtool check metrics with every family populated",
    async () => {
      const promtool = requireExecutable("promtool");
      const t = await app({ customLabels: ["team"] });
      await send(`${t.url}/items/1`, { headers: { "x-bf-prom-team": "blue" } });
      await send(`${t.url}/nope`);
      await send(`${t.url}/echo`, {
        method: "POST",
        body: "hi",
        headers: { "content-type": "text/plain" },
      });
      t.telemetry.provider.record(
        providerCall({
          inputTokens: 5,
          outputTokens: 7,
          firstTokenSeconds: 0.1,
          interTokenSeconds: [0.01],
        }),
      );
      t.telemetry.provider.record(
        providerCall({ success: false, reason: "timeout" }),
      );
      t.telemetry.mcp.toolCall({
        client: "fs",
        tool: "read",
        status: "success",
        durationSeconds: 0.01,
      });
      t.telemetry.mcp.clientState("fs", "connected");
      t.telemetry.mcp.clientReconnect("fs");
      t.telemetry.mcp.clientTools("fs", 4);
      t.telemetry.mcp.agentIterations(2);
      t.telemetry.mcp.codeModeExecution("success");
      const text = await t.scrapeText();
      const check = spawnSync(promtool, ["check", "metrics"], {
        input: text,
        encoding: "utf8",
      });
      expect(`${check.stdout}${check.stderr}`.trim()).toBe("");
      expect(check.status).toBe(0);
    },
  );
});
