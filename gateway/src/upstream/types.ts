/** The upstream layer's public contract (agreed in the interfaces between the parts). */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";

import type { SecretSource } from "../config/env.js";
import type { ClientConfig, GatewayConfig } from "../config/schema.js";
import type { ToolRegistry } from "../registry/types.js";
import type { McpRecorder } from "../telemetry/types.js";
import type { Clock } from "./clock.js";

export type ClientState = "connecting" | "connected" | "disconnected" | "error";
export type ConnectionType = ClientConfig["connection_type"];

export interface ClientStatus {
  readonly id: string;
  readonly name: string;
  readonly connectionType: ConnectionType;
  readonly state: ClientState;
  /** ISO time of the last state change. */
  readonly since: string;
  /** Upstream tool names currently offered (connected and in tools_to_execute). */
  readonly tools: readonly string[];
  readonly lastError?: string;
  readonly consecutiveFailures: number;
}

export interface UpstreamManager {
  readonly registry: ToolRegistry;
  /**
   * Converge on the desired client set: file clients of `config` plus `extraClients` (created
   * via the API). New clients connect, changed ones are rebuilt, removed ones closed, unchanged
   * ones untouched (tools_to_execute / tools_to_auto_execute / is_ping_available /
   * is_code_mode_client changes apply without reconnect). Resolves once the changes are
   * started; connecting continues in the background.
   */
  apply(
    config: GatewayConfig,
    extraClients?: readonly ClientConfig[],
  ): Promise<void>;
  list(): readonly ClientStatus[];
  get(id: string): ClientStatus | undefined;
  /** Manual reconnect with the retry logic of SPEC 8.2; resolves with the final status. TG_ERR_CLIENT_NOT_FOUND for an unknown id. */
  reconnect(id: string): Promise<ClientStatus>;
  /** Resolves when the client is connected, or rejects after timeoutMs (TG_ERR_TIMEOUT; TG_ERR_CLIENT_NOT_FOUND for an unknown id). */
  waitConnected(id: string, timeoutMs: number): Promise<void>;
  onStateChange(
    listener: (status: ClientStatus, previous: ClientState | undefined) => void,
  ): () => void;
  close(): Promise<void>;
}

export interface UpstreamOptions {
  logger: Logger;
  secrets?: SecretSource;
  /** Per-client auth-header hook (OAuth plugs in here); called for every HTTP request, merged over static headers. */
  authHeaders?: (client: ClientConfig) => Promise<Record<string, string>>;
  recorder?: McpRecorder;
  /** Time source for backoff, health checks and waits; tests pass a fake. Default: the system clock. */
  clock?: Clock;
  /**
   * The fleet's last known (valid) tools of a client by name, from the tool snapshots. A
   * connection offers them in the registry during its first `connecting` only, and a call to
   * one waits for that connect (within the tool timeout). Must be a local read.
   */
  snapshotTools?: (clientName: string) => readonly Tool[] | undefined;
  /** Called with the server's full tool list after each connect and re-listing (publish snapshots, fleet list_changed). */
  onTools?: (
    clientName: string,
    tools: readonly Tool[],
    origin: ToolsOrigin,
  ) => void;
  /** Called after every counted health check (status carries the failure count); the fleet reports it and asks other pods to re-check. */
  onHealthCheck?: (status: ClientStatus, check: HealthCheck) => void;
}

/** One counted health check: on the connection's schedule, or on demand (`checkNow`); `failure` when it failed. */
export interface HealthCheck {
  readonly scheduled: boolean;
  readonly failure?: string;
}

/** Why a connection listed its tools: it connected, the upstream sent list_changed, or another pod asked (fleet). */
export type ToolsOrigin = "connect" | "upstream" | "fleet";
