/**
 * bench upstream: what the registry adds to a tool call.
 * - upstream.registry.lookup_filter: resolve(name) + isVisible(entry, filter) per call at 1,000
 *   tools over 20 clients, against a bare Map lookup; target under 2 µs per call.
 * - upstream.registry.list_1000: a filtered tools/list snapshot of 1,000 tools, against copying
 *   the cached array; target under 1 ms.
 * - upstream.call: a registry-mediated call to server-everything's echo (stdio) against a bare
 *   SDK `callTool` on the same connection.
 * Micro-operations run in batches of BATCH calls per timed op, so timer overhead does not
 * swamp them; the figures reported per call divide by BATCH.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolEntry, ToolFilter } from "@toolgate/gateway";
import {
  AggregatedToolRegistry,
  createUpstreamManager,
  GatewayConfig,
} from "@toolgate/gateway";
import { pino } from "pino";

import type { BenchResult, Side } from "./harness.js";
import { compare, result } from "./harness.js";

const CLIENTS = 20;
const TOOLS_PER_CLIENT = 50;
const BATCH = 1000;

function buildRegistry(): {
  registry: AggregatedToolRegistry;
  names: string[];
} {
  const registry = new AggregatedToolRegistry(() =>
    Promise.resolve({ content: [] }),
  );
  const names: string[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const client = `client_${c}`;
    const tools: Tool[] = [];
    for (let t = 0; t < TOOLS_PER_CLIENT; t++) {
      const name = `tool_${t}`;
      tools.push({
        name,
        description: `tool ${t} of ${client}`,
        inputSchema: { type: "object", properties: { q: { type: "string" } } },
      });
      names.push(`${client}_${name}`);
    }
    registry.setClient({
      id: client,
      name: client,
      codeMode: false,
      toolsToExecute: ["*"],
      toolsToAutoExecute: [],
      tools,
    });
  }
  return { registry, names };
}

/** A realistic request filter: include 15 clients, exclude 2 tools and one client's wildcard, and a key allowance. */
function requestFilter(): ToolFilter {
  const include = new Set(Array.from({ length: 15 }, (_, i) => `client_${i}`));
  const allowance = new Map<string, "*" | ReadonlySet<string>>();
  for (let c = 0; c < CLIENTS; c++)
    allowance.set(
      `client_${c}`,
      c % 2 === 0 ? "*" : new Set(["tool_1", "tool_2", "tool_3"]),
    );
  return {
    includeClients: include,
    excludeTools: new Set([
      "client_1_tool_1",
      "client_2_tool_2",
      "client_14_*",
    ]),
    allowance,
  };
}

const perCall = (s: Side): Side => ({
  p50_ms: s.p50_ms / BATCH,
  p99_ms: s.p99_ms / BATCH,
});

async function lookupFilter(): Promise<BenchResult> {
  const { registry, names } = buildRegistry();
  const filter = requestFilter();
  const bare = new Map(
    registry.list({ includeCodeMode: true }).map((e) => [e.name, e]),
  );
  let i = 0;
  let sink = 0;
  const sides = await compare(
    () => {
      for (let k = 0; k < BATCH; k++)
        if (bare.get(names[i++ % names.length] ?? "")) sink++;
      return Promise.resolve();
    },
    () => {
      for (let k = 0; k < BATCH; k++) {
        const entry: ToolEntry | undefined = registry.resolve(
          names[i++ % names.length] ?? "",
        );
        if (entry && registry.isVisible(entry, filter)) sink++;
      }
      return Promise.resolve();
    },
    { rounds: 7, perRound: 200, warmup: 200 },
  );
  const sidesPerCall = {
    baseline: perCall(sides.baseline),
    toolgate: perCall(sides.toolgate),
  };
  const us = sidesPerCall.toolgate.p50_ms * 1000;
  return result(
    "upstream.registry.lookup_filter",
    sidesPerCall,
    "toolgate per call < 2 us",
    () => us < 2,
    {
      per_call_us: Math.round(us * 1000) / 1000,
      tools: names.length,
      clients: CLIENTS,
      sink: sink > 0,
    },
  );
}

async function listSnapshot(): Promise<BenchResult> {
  const { registry } = buildRegistry();
  const filter = requestFilter();
  const cached = registry.list({ includeCodeMode: true });
  const sides = await compare(
    () => Promise.resolve(cached.slice()),
    () => Promise.resolve(registry.list(filter)),
    { rounds: 7, perRound: 300, warmup: 200 },
  );
  return result(
    "upstream.registry.list_1000",
    sides,
    "toolgate p50 < 1 ms",
    (r) => r.toolgate.p50_ms < 1,
    { tools: cached.length, visible: registry.list(filter).length },
  );
}

async function callThroughRegistry(): Promise<BenchResult> {
  const require = createRequire(import.meta.url);
  const manifest =
    require.resolve("@modelcontextprotocol/server-everything/package.json");
  const bin = join(dirname(manifest), "dist", "index.js");
  const manager = createUpstreamManager({ logger: pino({ level: "silent" }) });
  try {
    const config = GatewayConfig.parse({
      mcp: {
        client_configs: [
          {
            name: "everything",
            connection_type: "stdio",
            stdio_config: { command: process.execPath, args: [bin, "stdio"] },
            tools_to_execute: ["*"],
          },
        ],
      },
    });
    await manager.apply(config);
    await manager.waitConnected("everything", 60_000);
    const client = manager.connection("everything")?.sdkClient;
    const entry = manager.registry.resolve("everything_echo");
    if (!client || !entry)
      throw new Error(
        "server-everything did not connect or offers no echo tool",
      );
    const args = { message: "bench" };
    const sides = await compare(
      () => client.callTool({ name: "echo", arguments: args }),
      () => manager.registry.call(entry, args),
      { rounds: 7, perRound: 200, warmup: 100 },
    );
    return result(
      "upstream.call",
      sides,
      "added_p50_ms <= 0.05",
      (r) => r.added_p50_ms <= 0.05,
    );
  } finally {
    await manager.close();
  }
}

/** BenchModule entry (see harness.ts). */
export async function run(): Promise<BenchResult[]> {
  return [
    await lookupFilter(),
    await listSnapshot(),
    await callThroughRegistry(),
  ];
}
