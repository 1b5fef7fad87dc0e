/**
 * MCP metrics (beyond SPEC 11): tool calls, client lifecycle, agent and code mode. They carry no
 * custom labels (tool calls through /mcp and agent loops are not tied to one HTTP request's
 * headers), so they are created once and survive custom-label changes.
 */
import type { Registry } from "prom-client";
import { Counter, Gauge, Histogram } from "prom-client";

import type { McpRecorder, ToolCallRecord } from "./types.js";

/** The states of SPEC 3.1; a state outside this list is added to the client's set when seen. */
export const CLIENT_STATES = [
  "connecting",
  "connected",
  "disconnected",
  "error",
] as const;
export const TOOL_CALL_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];
export const AGENT_ITERATION_BUCKETS = [
  1, 2, 3, 4, 5, 7, 10, 15, 20, 50, 100, 1000,
];
const CODE_MODE_STATUSES = ["success", "error", "timeout"] as const;

/** McpRecorder plus the deferred tool-call path; see `createTelemetry` for the deferral. */
export interface McpMetrics extends Omit<McpRecorder, "toolCall"> {
  recordToolCall(record: ToolCallRecord): void;
}

/** `collect` runs before the tool-call families are exported (the owner's deferred records). */
export function createMcpMetrics(
  registry: Registry,
  collect: () => void,
): McpMetrics {
  const registers = [registry];
  const toolCalls = new Counter({
    name: "mcp_tool_calls_total",
    help: "Tool calls to upstream MCP servers, by client, tool and status (success, error, failure).",
    labelNames: ["client", "tool", "status"],
    registers,
    collect,
  });
  const toolDuration = new Histogram({
    name: "mcp_tool_call_duration_seconds",
    help: "Duration of tool calls to upstream MCP servers in seconds.",
    labelNames: ["client", "tool"],
    buckets: TOOL_CALL_BUCKETS,
    registers,
    collect,
  });
  const state = new Gauge({
    name: "mcp_client_state",
    help: "1 for the current state of each MCP client, 0 for its other states.",
    labelNames: ["client", "state"],
    registers,
  });
  const reconnects = new Counter({
    name: "mcp_client_reconnects_total",
    help: "Reconnect attempts per MCP client.",
    labelNames: ["client"],
    registers,
  });
  const tools = new Gauge({
    name: "mcp_tools",
    help: "Tools currently offered by each MCP client.",
    labelNames: ["client"],
    registers,
  });
  const iterations = new Histogram({
    name: "agent_iterations",
    help: "Agent-mode iterations (model round trips) per chat request.",
    buckets: AGENT_ITERATION_BUCKETS,
    registers,
  });
  const codeMode = new Counter({
    name: "code_mode_executions_total",
    help: "executeToolCode runs by status.",
    labelNames: ["status"],
    registers,
  });
  // Zero series for the known statuses so rate() sees the family from the first scrape.
  for (const status of CODE_MODE_STATUSES) codeMode.inc({ status }, 0);

  /** States exported per client; grows when a client reports a state outside CLIENT_STATES. */
  const statesOf = new Map<string, Set<string>>();

  return {
    recordToolCall(r) {
      toolCalls.inc({ client: r.client, tool: r.tool, status: r.status });
      if (Number.isFinite(r.durationSeconds) && r.durationSeconds >= 0)
        toolDuration.observe(
          { client: r.client, tool: r.tool },
          r.durationSeconds,
        );
    },
    clientState(client, current) {
      let states = statesOf.get(client);
      if (states === undefined) {
        states = new Set(CLIENT_STATES);
        statesOf.set(client, states);
      }
      states.add(current);
      for (const s of states)
        state.set({ client, state: s }, s === current ? 1 : 0);
    },
    clientReconnect(client) {
      reconnects.inc({ client });
    },
    clientTools(client, count) {
      if (Number.isFinite(count) && count >= 0) tools.set({ client }, count);
    },
    // A removed client's gauges describe something that no longer exists, so they go; its
    // counters stay (they are history, and a client re-added under the same name continues them).
    clientRemoved(client) {
      for (const s of statesOf.get(client) ?? [])
        state.remove({ client, state: s });
      statesOf.delete(client);
      tools.remove({ client });
    },
    agentIterations(n) {
      if (Number.isFinite(n) && n >= 0) iterations.observe(n);
    },
    codeModeExecution(status) {
      codeMode.inc({ status });
    },
  };
}
