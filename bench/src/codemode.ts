/**
 * bench codemode: one `executeToolCode` whose script makes 10 tool calls, against the same 10
 * `tools/call` sent one after another through /mcp, interleaved in one run. One gateway
 * process serves both: a direct client and a code-mode client, each on its own
 * server-everything process over streamable HTTP (one upstream process refuses a second
 * concurrent session set-up now and then, which only delays start-up).
 * - codemode.script10: target toolgate p50 <= 1.1 x baseline p50 + 5 ms.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import {
  freePort,
  GATEWAY_MAIN,
  MCP_HEADERS,
  startEverythingHttp,
} from "./processes.js";

const CALLS = 10;

const HEADERS = MCP_HEADERS;
const SCRIPT = `out = []\nfor i in range(${CALLS}):\n    out.append(cm.echo(message="bench"))\nresult = len(out)`;

let counter = 0;
const toolCall = (name: string, args: Record<string, unknown>): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++counter,
    method: "tools/call",
    params: { name, arguments: args },
  });

let errors = 0;
async function post(url: string, body: string, expect: string): Promise<void> {
  const res = await fetch(url, { method: "POST", headers: HEADERS, body });
  const text = await res.text();
  if (res.status !== 200 || !text.includes(expect)) errors++;
}

/** Ten direct calls, one after another, as a client without code mode makes them. */
async function direct(url: string): Promise<void> {
  for (let i = 0; i < CALLS; i++)
    await post(
      url,
      toolCall("direct_echo", { message: "bench" }),
      "Echo: bench",
    );
}

/** Polls until both clients are connected: the script answers with its result (or 30 s pass). */
async function untilReady(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try {
      const [a, b] = await Promise.all([
        fetch(url, {
          method: "POST",
          headers: HEADERS,
          body: toolCall("executeToolCode", { code: SCRIPT }),
        }).then((r) => r.text()),
        fetch(url, {
          method: "POST",
          headers: HEADERS,
          body: toolCall("direct_echo", { message: "bench" }),
        }).then((r) => r.text()),
      ]);
      if (a.includes(`\\"result\\":${CALLS}`) && b.includes("Echo: bench"))
        return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the gateway at ${url} never ran the code-mode script`);
}

export async function run(): Promise<BenchResult[]> {
  const upstreams = await Promise.all([
    startEverythingHttp(),
    startEverythingHttp(),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-codemode-"));
  const configPath = join(dir, "config.json");
  const client = (
    name: string,
    codeMode: boolean,
    upstreamUrl: string,
  ): Record<string, unknown> => ({
    name,
    connection_type: "http",
    connection_string: upstreamUrl,
    tools_to_execute: ["echo"],
    is_code_mode_client: codeMode,
  });
  writeFileSync(
    configPath,
    JSON.stringify({
      server: { log_level: "warn" },
      mcp: {
        client_configs: [
          client("direct", false, upstreams[0].url),
          client("cm", true, upstreams[1].url),
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
  const url = `http://127.0.0.1:${gatewayPort}/mcp`;
  try {
    await untilReady(url);
    errors = 0;
    const sides = await compare(
      () => direct(url),
      () =>
        post(
          url,
          toolCall("executeToolCode", { code: SCRIPT }),
          `\\"result\\":${CALLS}`,
        ),
      { rounds: 7, perRound: 30, warmup: 20 },
    );
    return [
      result(
        "codemode.script10",
        sides,
        "toolgate.p50_ms<=1.1*baseline.p50_ms+5",
        (r) => r.toolgate.p50_ms <= 1.1 * r.baseline.p50_ms + 5 && errors === 0,
        { errors, calls_per_op: CALLS },
      ),
    ];
  } finally {
    gateway.kill("SIGTERM");
    for (const u of upstreams) u.child.kill("SIGTERM");
  }
}
