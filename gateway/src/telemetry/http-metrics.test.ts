import { Counter, Histogram, Registry } from "prom-client";
import { describe, expect, test } from "vitest";

import {
  createHttpMetrics,
  HTTP_DURATION_BUCKETS,
  SIZE_BUCKETS,
} from "./http-metrics.js";
import { customLabelSet } from "./labels.js";

interface Obs {
  path: string;
  method: string;
  status: number;
  headers: Record<string, string>;
  duration: number;
  req: number;
  res: number | undefined;
}

/** The same observations through prom-client's own Counter and Histogram. */
async function reference(
  custom: readonly string[],
  observations: readonly Obs[],
  registry = new Registry(),
): Promise<string> {
  const labelNames = ["path", "method", "status", ...custom];
  const registers = [registry];
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests served, by route pattern, method and status.",
    labelNames,
    registers,
  });
  const hist = (name: string, help: string, buckets: number[]): Histogram =>
    new Histogram({ name, help, labelNames, buckets, registers });
  const duration = hist(
    "http_request_duration_seconds",
    "Time from receiving the request to finishing the response, in seconds.",
    HTTP_DURATION_BUCKETS,
  );
  const reqSize = hist(
    "http_request_size_bytes",
    "Request body size in bytes (Content-Length, or the received body).",
    SIZE_BUCKETS,
  );
  const resSize = hist(
    "http_response_size_bytes",
    "Response body size in bytes; streamed responses of unknown length are not observed.",
    SIZE_BUCKETS,
  );
  for (const o of observations) {
    const labels: Record<string, string> = {
      path: o.path,
      method: o.method,
      status: String(o.status),
    };
    for (const c of custom)
      labels[c] = o.headers[`x-bf-prom-${c.toLowerCase()}`] ?? "";
    requests.inc(labels);
    duration.observe(labels, o.duration);
    reqSize.observe(labels, o.req);
    if (o.res !== undefined) resSize.observe(labels, o.res);
  }
  return registry.metrics();
}

async function ours(
  custom: readonly string[],
  observations: readonly Obs[],
): Promise<string> {
  const registry = new Registry();
  const m = createHttpMetrics(registry, customLabelSet(custom));
  for (const o of observations)
    m.record(o.path, o.method, o.status, o.headers, o.duration, o.req, o.res);
  return registry.metrics();
}

const obs = (over: Partial<Obs>): Obs => ({
  path: "/mcp",
  method: "POST",
  status: 200,
  headers: {},
  duration: 0.004,
  req: 120,
  res: 300,
  ...over,
});

describe("pre-aggregated HTTP families", () => {
  test.each([
    { name: "one request", custom: [], observations: [obs({})] },
    {
      name: "values exactly on bucket bounds, above the last bound, and zero",
      custom: [],
      observations: [
        obs({ duration: 0.001, req: 64, res: 16_777_216 }),
        obs({ duration: 500, req: 0, res: 99_999_999 }),
        obs({ duration: 0, req: 65, res: 0 }),
      ],
    },
    {
      name: "several series, custom labels with missing headers and quotes to escape",
      custom: ["team", "Env"],
      observations: [
        obs({ headers: { "x-bf-prom-team": "blue" } }),
        obs({ headers: { "x-bf-prom-team": "blue" }, status: 500 }),
        obs({
          headers: { "x-bf-prom-team": 'say "hi"\\', "x-bf-prom-env": "prod" },
          path: "/v1/chat/completions",
        }),
        obs({ method: "GET", path: "unmatched", status: 404, res: undefined }),
      ],
    },
  ])(
    "export exactly what prom-client's Counter and Histogram export for $name",
    async ({ custom, observations }) => {
      expect(await ours(custom, observations)).toBe(
        await reference(custom, observations),
      );
    },
  );

  test("getMetricsAsJSON gives the same label sets and values as prom-client's own metrics", async () => {
    const observations = [
      obs({ headers: { "x-bf-prom-team": "blue" } }),
      obs({ status: 500, res: undefined }),
    ];
    const registry = new Registry();
    const m = createHttpMetrics(registry, customLabelSet(["team"]));
    for (const o of observations)
      m.record(o.path, o.method, o.status, o.headers, o.duration, o.req, o.res);
    const simplify = (
      json: Awaited<ReturnType<Registry["getMetricsAsJSON"]>>,
    ): unknown =>
      json.map((f) => ({
        name: f.name,
        values: f.values.map((v) => ({
          labels: v.labels,
          value: v.value,
          metricName: (v as { metricName?: string }).metricName,
        })),
      }));
    const ref = new Registry();
    await reference(["team"], observations, ref);
    expect(simplify(await registry.getMetricsAsJSON())).toEqual(
      simplify(await ref.getMetricsAsJSON()),
    );
  });

  test("resetMetrics clears the series", async () => {
    const registry = new Registry();
    const m = createHttpMetrics(registry, customLabelSet([]));
    m.record("/a", "GET", 200, {}, 0.01, 0, 10);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('path="/a"');
  });

  test("unregister removes the four families and nothing else", async () => {
    const registry = new Registry();
    new Counter({
      name: "other_total",
      help: "x",
      registers: [registry],
    }).inc();
    const m = createHttpMetrics(registry, customLabelSet([]));
    m.record("/a", "GET", 200, {}, 0.01, 0, 10);
    m.unregister();
    expect(await registry.metrics()).toBe(
      "# HELP other_total x\n# TYPE other_total counter\nother_total 1\n",
    );
  });

  test("ignores NaN and negative observations but still counts the request", async () => {
    const registry = new Registry();
    const m = createHttpMetrics(registry, customLabelSet([]));
    m.record("/a", "GET", 200, {}, Number.NaN, -1, undefined);
    const text = await registry.metrics();
    expect(text).toContain(
      'http_requests_total{path="/a",method="GET",status="200"} 1',
    );
    expect(text).not.toContain("http_request_duration_seconds_count");
    expect(text).not.toContain("NaN");
  });
});
