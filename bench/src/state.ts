/**
 * Shared state on the read path: the tool-snapshot and fleet-health services over the Redis
 * store (the real Redis at 127.0.0.1:6379, or TOOLGATE_BENCH_REDIS_URL) against the same
 * services over the memory store, interleaved rounds.
 *
 * - state.snapshots.hot: what tools/list and tools/call touch when nothing changed (read all
 *   snapshots, read one, re-publish an unchanged list). It must send no Redis command at all,
 *   counted by the store, so Redis may add nothing measurable: target added p50 <= 0.3 ms and
 *   0 commands.
 * - state.health.fleet: the fleet view behind GET /api/mcp/clients (SCAN + MGET per read, by
 *   design not cached): a management read, target added p50 <= 2 ms on loopback.
 * - state.gateway.call: tools/call through a gateway process on each store (state-call.ts).
 */
import type { FleetHealth, StateStore, ToolSnapshots } from "@toolgate/gateway";
import {
  createFleetHealth,
  createStateStore,
  createToolSnapshots,
} from "@toolgate/gateway";
import pino from "pino";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";
import { BENCH_REDIS_URL, dropNamespace } from "./redis-namespace.js";
import { runGatewayCall } from "./state-call.js";

const logger = pino({ level: "silent" });
const REDIS_URL = BENCH_REDIS_URL;
const CLIENTS = 20;
const TOOLS_PER_CLIENT = 25;

const tools = (
  client: number,
): { name: string; description: string; inputSchema: object }[] =>
  Array.from({ length: TOOLS_PER_CLIENT }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i} of client ${client}`,
    inputSchema: {
      type: "object",
      properties: { q: { type: "string" }, n: { type: "number" } },
      required: ["q"],
    },
  }));

interface Side {
  store: StateStore;
  snapshots: ToolSnapshots;
  health: FleetHealth;
}

async function side(
  redisUrl: string | undefined,
  namespace: string,
): Promise<Side> {
  const store = createStateStore({
    redisUrl,
    logger,
    namespace,
    podId: "bench-pod",
  });
  await store.ping();
  const snapshots = createToolSnapshots({ store, podId: "bench-pod", logger });
  const health = createFleetHealth({
    store,
    podId: "bench-pod",
    logger,
    ttlMs: 600_000,
  });
  await Promise.all([snapshots.start(), health.start()]);
  for (let c = 0; c < CLIENTS; c++) {
    await snapshots.publish(`client_${c}`, tools(c));
    await health.report({
      client: `client_${c}`,
      state: "connected",
      consecutiveFailures: 0,
      tools: tools(c).map((t) => t.name),
      since: new Date().toISOString(),
    });
  }
  return { store, snapshots, health };
}

function hotRead(s: Side): () => Promise<unknown> {
  let n = 0;
  const unchanged = tools(3);
  return async () => {
    const c = n++ % CLIENTS;
    s.snapshots.all();
    s.snapshots.get(`client_${c}`);
    return s.snapshots.publish("client_3", unchanged);
  };
}

export async function run(): Promise<BenchResult[]> {
  const namespace = `tgbench-${process.pid}-${Date.now().toString(36)}`;
  const memory = await side(undefined, namespace);
  const redis = await side(REDIS_URL, namespace);
  try {
    const before = redis.store.stats().commands;
    const hot = await compare(hotRead(memory), hotRead(redis), {
      rounds: 7,
      perRound: 2000,
      warmup: 500,
    });
    const hotCommands = redis.store.stats().commands - before;
    const fleet = await compare(
      () => memory.health.fleet(),
      () => redis.health.fleet(),
      { rounds: 7, perRound: 100, warmup: 30 },
    );
    return [
      result(
        "state.snapshots.hot",
        hot,
        "added_p50_ms<=0.3 && redis_commands==0",
        (r) => r.added_p50_ms <= 0.3 && hotCommands === 0,
        {
          redis_commands: hotCommands,
          clients: CLIENTS,
          tools_per_client: TOOLS_PER_CLIENT,
        },
      ),
      result(
        "state.health.fleet",
        fleet,
        "added_p50_ms<=2",
        (r) => r.added_p50_ms <= 2,
        { clients: CLIENTS },
      ),
      ...(await runGatewayCall()),
    ];
  } finally {
    await Promise.all(
      [memory, redis].map(async (s) => {
        await s.snapshots.close();
        await s.health.close();
        await s.store.close();
      }),
    );
    await dropNamespace(namespace);
  }
}
