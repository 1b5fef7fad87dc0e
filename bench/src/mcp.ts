/**
 * bench mcp: `tools/call` of server-everything's `echo` through Toolgate's /mcp against the
 * same call made directly to the same upstream over streamable HTTP, interleaved in one run.
 * The upstream and the gateway are separate processes (as deployed); this process is only the
 * client, sending raw JSON-RPC POSTs over keep-alive connections on both sides.
 * - mcp.call.c1: concurrency 1; target p50 added <= 0.5 ms and ratio <= 1.5.
 * - mcp.call.c16: concurrency 16; target gateway throughput >= 0.5x direct, no errors.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import {
  everythingBin,
  freePort,
  GATEWAY_MAIN,
  MCP_HEADERS,
  startChild,
} from "./processes.js";

let counter = 0;
const echoBody = (): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++counter,
    method: "tools/call",
    params: { name: "echo", arguments: { message: "bench" } },
  });
const gatewayBody = (): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++counter,
    method: "tools/call",
    params: { name: "everything_echo", arguments: { message: "bench" } },
  });

const HEADERS = MCP_HEADERS;

/**
 * The upstream needs a session (it is stateful); the gateway does not. The direct side speaks
 * the protocol version the gateway's upstream client negotiates (the SDK's latest): the
 * reference server answers 2025-11-25 requests about 2 ms slower than 2025-06-18 ones, so
 * mixing versions would compare different calls.
 */
async function upstreamSession(url: string): Promise<Record<string, string>> {
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  await res.text();
  const session = res.headers.get("mcp-session-id");
  if (!session) throw new Error("the upstream issued no session id");
  const headers = {
    ...HEADERS,
    "mcp-session-id": session,
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
  };
  await (
    await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/initialized",
      }),
    })
  ).text();
  return headers;
}

/** Polls until the gateway is up, its upstream connected and the tool offered (or 30 s pass). */
async function untilEchoes(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: HEADERS,
        body: gatewayBody(),
      });
      if ((await res.text()).includes("Echo: bench")) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the gateway at ${url} never answered everything_echo`);
}

let errors = 0;
const pools = new Map<string, Pool>();

/** One keep-alive pool per origin, the same client code on both sides (fetch would add ~0.5 ms to each). */
async function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<void> {
  const u = new URL(url);
  let pool = pools.get(u.origin);
  if (!pool)
    pools.set(u.origin, (pool = new Pool(u.origin, { connections: 32 })));
  const res = await pool.request({
    path: u.pathname,
    method: "POST",
    headers,
    body,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || !text.includes("Echo: bench")) errors++;
}

export async function run(): Promise<BenchResult[]> {
  const upstreamPort = await freePort();
  const upstream = await startChild(
    [everythingBin(), "streamableHttp"],
    { PORT: String(upstreamPort) },
    /listening on port/i,
  );
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/mcp`;
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  const configPath = join(dir, "config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      server: { log_level: "warn" },
      mcp: {
        client_configs: [
          {
            name: "everything",
            connection_type: "http",
            connection_string: upstreamUrl,
            tools_to_execute: ["*"],
          },
        ],
      },
    }),
  );
  const gatewayPort = await freePort();
  const gateway = spawn(
    process.execPath,
    [GATEWAY_MAIN, "--config", configPath, "--port", String(gatewayPort)],
    { stdio: "ignore" },
  );
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}/mcp`;
  try {
    // Wait until the gateway's upstream is connected and the tool is offered.
    await untilEchoes(gatewayUrl);
    const direct = await upstreamSession(upstreamUrl);
    errors = 0;
    const c1 = await compare(
      () => post(upstreamUrl, direct, echoBody()),
      () => post(gatewayUrl, HEADERS, gatewayBody()),
      { rounds: 7, perRound: 200, warmup: 200 },
    );
    const c16 = await compare(
      () => post(upstreamUrl, direct, echoBody()),
      () => post(gatewayUrl, HEADERS, gatewayBody()),
      { rounds: 5, perRound: 400, warmup: 200, concurrency: 16 },
    );
    return [
      result(
        "mcp.call.c1",
        c1,
        "ratio<=1.5 && added_p50_ms<=0.5",
        (r) => r.ratio <= 1.5 && r.added_p50_ms <= 0.5,
        { errors },
      ),
      result(
        "mcp.call.c16",
        c16,
        "toolgate.ops_per_s>=0.5*baseline.ops_per_s && errors==0",
        (r) =>
          (r.toolgate.ops_per_s ?? 0) >=
            0.5 * (r.baseline.ops_per_s ?? Infinity) && errors === 0,
        {
          errors,
          throughput_ratio:
            Math.round(
              ((c16.toolgate.ops_per_s ?? 0) / (c16.baseline.ops_per_s ?? 1)) *
                1000,
            ) / 1000,
        },
      ),
    ];
  } finally {
    await Promise.all([...pools.values()].map((p) => p.close()));
    gateway.kill("SIGTERM");
    upstream.kill("SIGTERM");
  }
}
