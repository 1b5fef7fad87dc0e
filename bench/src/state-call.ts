/**
 * state.gateway.call: `tools/call` of server-everything's `echo` through two Toolgate processes
 * in one run, one on the memory store (baseline) and one on the Redis store (the real Redis
 * at 127.0.0.1:6379, or TOOLGATE_BENCH_REDIS_URL; its own namespace, removed afterwards),
 * both in front of the same upstream over streamable HTTP, interleaved rounds. The hot path
 * sends no Redis command, so Redis may add nothing measurable: target added p50 <= 0.3 ms.
 * The Redis commands sent during the measured rounds are counted with MONITOR and reported.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";

import { Redis } from "ioredis";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import {
  gatewayEchoBody,
  MCP_HEADERS,
  startEverythingHttp,
  startGateway,
} from "./processes.js";
import { BENCH_REDIS_URL, dropNamespace } from "./redis-namespace.js";

const REDIS_URL = BENCH_REDIS_URL;
const HEADERS = MCP_HEADERS;

let errors = 0;
async function call(url: string): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: HEADERS,
    body: gatewayEchoBody(),
  });
  const text = await res.text();
  if (res.status !== 200 || !text.includes("Echo: bench")) errors++;
}

export async function runGatewayCall(): Promise<BenchResult[]> {
  const namespace = `tgbench-call-${process.pid}-${randomUUID().slice(0, 8)}`;
  const { child: upstream, url: upstreamUrl } = await startEverythingHttp();
  const children: ChildProcess[] = [upstream];
  const admin = new Redis(REDIS_URL);
  let monitor: Redis | undefined;
  try {
    // No health checks or report refreshes during the rounds, on either side.
    const memory = await startGateway({ upstreamUrl, quietHealth: true });
    children.push(memory.child);
    const redis = await startGateway({
      upstreamUrl,
      env: { TOOLGATE_STATE_NAMESPACE: namespace },
      redisUrl: REDIS_URL,
      quietHealth: true,
    });
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
