/**
 * A real Prometheus server (Debian's `prometheus` package) scrapes the test app's /metrics with
 * Basic auth, and the series are read back through its HTTP API.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect } from "vitest";

import {
  AUTH,
  findExecutable,
  requireExecutable,
  send,
  startApp,
  type TestApp,
  testWithTool,
} from "./telemetry-fixture.js";

const promTest = testWithTool("prometheus");

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string")
    throw new Error("no port");
  return address.port;
}

interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

let app: TestApp | undefined;
let prometheus: ChildProcess | undefined;
let dir: string | undefined;
let promUrl = "";
let promLog = "";

async function query(q: string): Promise<PromSeries[]> {
  const res = await fetch(
    `${promUrl}/api/v1/query?query=${encodeURIComponent(q)}`,
  );
  const body = (await res.json()) as {
    status: string;
    data: { result: PromSeries[] };
  };
  if (body.status !== "success")
    throw new Error(`query ${q} failed: ${JSON.stringify(body)}`);
  return body.data.result;
}

/** Polls until `q` returns series (Prometheus scrapes every second), up to 30 s. */
async function eventually(
  q: string,
  ready: (r: PromSeries[]) => boolean = (r) => r.length > 0,
): Promise<PromSeries[]> {
  let last: PromSeries[] = [];
  for (let i = 0; i < 150; i++) {
    try {
      last = await query(q);
      if (ready(last)) return last;
    } catch {
      // Prometheus is still starting
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `no series for ${q} (last answer ${JSON.stringify(last)}); prometheus log:\n${promLog}`,
  );
}

describe("a real Prometheus server scraping /metrics", () => {
  beforeAll(async () => {
    // Without the binary the test below is skipped locally, or fails in CI on requireExecutable.
    const bin = findExecutable("prometheus");
    if (bin === undefined) return;
    app = await startApp({ customLabels: ["team"], auth: true });
    await send(`${app.url}/items/7`, { headers: { "x-bf-prom-team": "blue" } });
    app.telemetry.provider.record({
      labels: {
        provider: "openai",
        model: "gpt-4o",
        method: "chat",
        virtual_key_name: "team-a",
      },
      custom: { team: "blue" },
      success: false,
      reason: "http_500",
      latencySeconds: 0.4,
    });
    app.telemetry.mcp.toolCall({
      client: "fs",
      tool: "read_file",
      status: "success",
      durationSeconds: 0.02,
    });
    app.telemetry.mcp.clientState("fs", "connected");

    dir = await mkdtemp(join(tmpdir(), "toolgate-prom-"));
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    const target = new URL(app.url).host;
    await writeFile(
      join(dir, "prometheus.yml"),
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "scrape_configs:",
        "  - job_name: toolgate",
        "    metrics_path: /metrics",
        "    basic_auth:",
        `      username: ${AUTH.username}`,
        `      password: ${AUTH.password}`,
        "    static_configs:",
        `      - targets: ["${target}"]`,
        "",
      ].join("\n"),
    );
    prometheus = spawn(
      bin,
      [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--log.level=warn",
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const collect = (chunk: Buffer): void => {
      promLog = (promLog + chunk.toString()).slice(-4000);
    };
    prometheus.stdout?.on("data", collect);
    prometheus.stderr?.on("data", collect);
  });

  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      const exited = new Promise((resolve) =>
        prometheus?.once("exit", resolve),
      );
      prometheus.kill("SIGTERM");
      await exited;
    }
    await app?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  promTest(
    "scrapes the target with Basic auth and stores HTTP, provider and MCP series with their labels",
    async () => {
      requireExecutable("prometheus");
      expect(prometheus, "prometheus was started").toBeDefined();
      const up = await eventually(
        'up{job="toolgate"}',
        (r) => r[0]?.value[1] === "1",
      );
      expect(up).toHaveLength(1);

      const http = await eventually('http_requests_total{path="/items/:id"}');
      expect(http.map((s) => ({ ...s.metric }))).toEqual([
        {
          __name__: "http_requests_total",
          job: "toolgate",
          instance: new URL(app!.url).host,
          path: "/items/:id",
          method: "GET",
          status: "200",
          team: "blue",
        },
      ]);
      expect(http[0]!.value[1]).toBe("1");

      // Empty label values are absent in Prometheus; the counts "0" are real values.
      const errors = await eventually("gateway_error_requests_total");
      expect(errors.map((s) => s.metric)).toEqual([
        {
          __name__: "gateway_error_requests_total",
          job: "toolgate",
          instance: new URL(app!.url).host,
          provider: "openai",
          model: "gpt-4o",
          method: "chat",
          virtual_key_name: "team-a",
          number_of_retries: "0",
          fallback_index: "0",
          team: "blue",
          reason: "http_500",
        },
      ]);

      const latency = await eventually(
        'gateway_upstream_latency_seconds_count{is_success="false"}',
      );
      expect(latency[0]!.value[1]).toBe("1");

      const tools = await eventually("mcp_tool_calls_total");
      expect(
        tools.map((s) => [
          s.metric.client,
          s.metric.tool,
          s.metric.status,
          s.value[1],
        ]),
      ).toEqual([["fs", "read_file", "success", "1"]]);

      const state = await eventually('mcp_client_state{client="fs"} == 1');
      expect(state.map((s) => s.metric.state)).toEqual(["connected"]);

      expect((await eventually("process_cpu_user_seconds_total")).length).toBe(
        1,
      );
    },
  );
});
