/**
 * bench mcp: `tools/call` of server-everything's `echo` through Toolgate's /mcp against the
 * same call made directly to the same upstream over streamable HTTP, interleaved in one run.
 * The upstream and the gateway are separate processes (as deployed); this process is only the
 * client, sending raw JSON-RPC POSTs over keep-alive connections on both sides.
 * - mcp.call.c1: concurrency 1; target p50 added <= 0.5 ms and ratio <= 1.5.
 * - mcp.call.c16: concurrency 16; target gateway throughput >= 0.5x direct, no errors.
 */
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import {
  gatewayEchoBody,
  MCP_HEADERS,
  startEverythingHttp,
  startGateway,
} from "./processes.js";

let counter = 0;
const echoBody = (): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++counter,
    method: "tools/call",
    params: { name: "echo", arguments: { message: "bench" } },
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
  const { child: upstream, url: upstreamUrl } = await startEverythingHttp();
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  try {
    gateway = await startGateway({ upstreamUrl });
    const gatewayUrl = gateway.url;
    const direct = await upstreamSession(upstreamUrl);
    errors = 0;
    const c1 = await compare(
      () => post(upstreamUrl, direct, echoBody()),
      () => post(gatewayUrl, HEADERS, gatewayEchoBody()),
      { rounds: 7, perRound: 200, warmup: 200 },
    );
    const c16 = await compare(
      () => post(upstreamUrl, direct, echoBody()),
      () => post(gatewayUrl, HEADERS, gatewayEchoBody()),
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
    gateway?.child.kill("SIGTERM");
    upstream.kill("SIGTERM");
  }
}
