/**
 * state.gateway.call: `tools/call` of server-everything's `echo` through two Toolgate processes
 * in one run, one on the memory store (baseline) and one on the Redis store (the real Redis
 * at 127.0.0.1:6379, or TOOLGATE_BENCH_REDIS_URL; its own namespace, removed afterwards),
 * both in front of the same upstream over streamable HTTP, interleaved rounds. The hot path
 * sends no Redis command, so Redis may add nothing measurable: target added p50 <= 0.3 ms.
 * The Redis commands sent during the measured rounds are counted with MONITOR and reported.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Redis } from "ioredis";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import {
  everythingBin,
  freePort,
  GATEWAY_MAIN,
  MCP_HEADERS,
} from "./processes.js";

const REDIS_URL =
  process.env.TOOLGATE_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
const HEADERS = MCP_HEADERS;

function startUpstream(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [everythingBin(), "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (/listening on port/i.test(seen)) resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`upstream exited with ${code}: ${seen.slice(-2000)}`)),
    );
  });
}

let counter = 0;
const body = (): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: ++counter,
    method: "tools/call",
    params: { name: "everything_echo", arguments: { message: "bench" } },
  });

let errors = 0;
async function call(url: string): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: body(),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes("Echo: bench")) errors++;
}

async function untilEchoes(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: HEADERS,
        body: body(),
      });
      if ((await res.text()).includes("Echo: bench")) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the gateway at ${url} never answered everything_echo`);
}

async function startGateway(
  upstreamUrl: string,
  env: Record<string, string>,
  redisUrl?: string,
): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-state-"));
  const configPath = join(dir, "config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      server: { log_level: "warn" },
      ...(redisUrl ? { state: { redis_url: redisUrl } } : {}),
      // No health checks or report refreshes during the rounds, on either side.
      mcp: {
        client_configs: [
          {
            name: "everything",
            connection_type: "http",
            connection_string: upstreamUrl,
            tools_to_execute: ["*"],
          },
        ],
        health_monitor_config: { check_interval: "1h" },
      },
    }),
  );
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [GATEWAY_MAIN, "--config", configPath, "--port", String(port)],
    { env: { ...process.env, ...env }, stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  await untilEchoes(url);
  return { child, url };
}

async function dropNamespace(namespace: string): Promise<void> {
  const admin = new Redis(REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, found] = await admin.scan(
        cursor,
        "MATCH",
        `${namespace}:*`,
        "COUNT",
        1000,
      );
      cursor = next;
      if (found.length > 0) await admin.del(...found);
    } while (cursor !== "0");
  } finally {
    admin.disconnect();
  }
}

export async function runGatewayCall(): Promise<BenchResult[]> {
  const namespace = `tgbench-call-${process.pid}-${randomUUID().slice(0, 8)}`;
  const upstreamPort = await freePort();
  const upstream = await startUpstream(upstreamPort);
  const upstreamUrl = `http://127.0.0.1:${upstreamPort}/mcp`;
  const children: ChildProcess[] = [upstream];
  const admin = new Redis(REDIS_URL);
  let monitor: Redis | undefined;
  try {
    const memory = await startGateway(upstreamUrl, {});
    children.push(memory.child);
    const redis = await startGateway(
      upstreamUrl,
      { TOOLGATE_STATE_NAMESPACE: namespace },
      REDIS_URL,
    );
    children.push(redis.child);
    monitor = await admin.monitor();
    let commands = 0;
    monitor.on("monitor", (_time: string, args: string[]) => {
      // Only this gateway's keys and channels; other users of the shared Redis are not ours.
      // Its runtime-client resync (every 30 s) is periodic, not caused by the calls.
      if (
        args.some(
          (a) =>
            a.startsWith(`${namespace}:`) &&
            !a.startsWith(`${namespace}:client:`),
        )
      )
        commands++;
    });
    errors = 0;
    const c1 = await compare(
      () => call(memory.url),
      () => call(redis.url),
      { rounds: 7, perRound: 300, warmup: 300 },
    );
    return [
      result(
        "state.gateway.call",
        c1,
        "added_p50_ms<=0.3 && redis_commands==0 && errors==0",
        (r) => r.added_p50_ms <= 0.3 && commands === 0 && errors === 0,
        {
          redis_commands: commands,
          errors,
        },
      ),
    ];
  } finally {
    monitor?.disconnect();
    admin.disconnect();
    for (const c of children) c.kill("SIGTERM");
    await dropNamespace(namespace);
  }
}
