/**
 * Several gateways in the test process sharing one Redis: each is a whole gateway
 * (`startGatewayApp`) with `state.redis_url` set and the test run's own namespace
 * (TOOLGATE_STATE_NAMESPACE through its secret source), driven over HTTP. Also our own
 * restartable redis-server for the outage and command-counting tests, and small HTTP helpers.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Redis } from "ioredis";

import type { GatewayConfigInput } from "../src/config/schema.js";
import {
  type RunningGateway,
  startGatewayApp,
} from "./fixtures/gateway-app.js";
import { durableArgs, spawnRedisServer } from "./fixtures/redis-server.js";
import { freePort } from "./fixtures/servers.js";

export const SHARED_REDIS = "redis://127.0.0.1:6379";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire; the assertions check its shape
export type Json = any;

export const uniqueNamespace = (): string =>
  `tgtest-fleet-${process.pid}-${randomUUID().slice(0, 8)}`;

export async function startPod(
  redisUrl: string,
  namespace: string,
  podId: string,
  config: GatewayConfigInput,
): Promise<RunningGateway> {
  const input: GatewayConfigInput = {
    ...config,
    state: { ...config.state, redis_url: redisUrl },
  };
  return startGatewayApp(input, {
    podId,
    secrets: { env: { ...process.env, TOOLGATE_STATE_NAMESPACE: namespace } },
  });
}

/** Deletes every key of a namespace (SCAN, never KEYS). */
export async function dropNamespace(
  redisUrl: string,
  namespace: string,
): Promise<void> {
  const admin = new Redis(redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await admin.connect();
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

export async function rpc(
  base: string,
  method: string,
  params?: object,
  id = 1,
): Promise<Json> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      ...(params ? { params } : {}),
    }),
  });
  const text = await res.text();
  return { status: res.status, ...(JSON.parse(text) as object) };
}

export async function toolNames(base: string): Promise<string[]> {
  const r = await rpc(base, "tools/list");
  return ((r.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
}

export async function api(
  base: string,
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body ? { "content-type": "application/json" } : {},
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** A GET /mcp SSE stream collecting its `data:` lines until closed. */
export interface SseStream {
  readonly events: string[];
  close(): Promise<void>;
}

export async function openSse(base: string): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}/mcp`, {
    headers: { accept: "text/event-stream" },
    signal: abort.signal,
  });
  if (res.status !== 200 || !res.body)
    throw new Error(`GET /mcp answered ${res.status}`);
  const events: string[] = [];
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += decoder.decode(chunk.value, { stream: true });
      let idx;
      while ((idx = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        events.push(
          ...frame
            .split("\n")
            .filter((l) => l.startsWith("data: "))
            .map((l) => l.slice(6)),
        );
      }
    }
  })().catch(() => undefined);
  return {
    events,
    async close() {
      abort.abort();
      await pump;
    },
  };
}

/** Our own redis-server on a free port (never the shared one), restartable on the same port with its AOF. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  kill(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "toolgate-fleet-redis-"));
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    child = await spawnRedisServer(durableArgs(port, dir));
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGKILL");
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    restart: launch,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
