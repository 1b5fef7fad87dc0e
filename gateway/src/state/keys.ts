/**
 * The key layout and value shapes in the shared store: the one place other components (the
 * operator reads per-client status from here) learn where things are. Keys below are logical;
 * the store prefixes its namespace, `toolgate` by default, so `health:github:pod-a` is the
 * Redis key `toolgate:health:github:pod-a`. Every value is the JSON envelope
 * `{"v":1,"rev":<n>,"data":<shape below>}`; a reader must reject other `v`s (or skip them,
 * as the operator does during a rolling upgrade).
 *
 * | Redis key                              | data                    | TTL                          | written by |
 * |----------------------------------------|-------------------------|------------------------------|------------|
 * | toolgate:snapshot:<clientName>         | ToolSnapshot            | none; deleted with the client | the pod whose connection saw the list |
 * | toolgate:health:<clientName>:<podId>   | ClientHealthReport      | 3 health intervals (default 3 x 10 s), refreshed | each pod for itself |
 * | toolgate:client:<clientId>             | RuntimeClientRecord (sealed when an encryption key is set) | none; deleted with the client | the pod that served the API call |
 * | toolgate:lock:<name>                   | raw owner token (no envelope) | the lock's TTL         | the lock holder |
 * | toolgate:oauth-flow:<state>            | reserved for OAuth: flow (state, PKCE verifier, pending client) | 15 min | OAuth |
 * | toolgate:oauth-token:<clientId>        | reserved for OAuth: AES-256-GCM sealed tokens | none        | OAuth |
 * | toolgate:oauth:<clientId>              | reserved for OAuth: status for the operator {status, authorizeUrl?, error?} | none | OAuth |
 * | toolgate:lock:oauth-refresh:<clientId> | token refresh lock      | refresh timeout              | OAuth |
 *
 * Channels (same namespace; messages are `{"v":1,"data":...}`):
 * `toolgate:events:snapshots` {client, hash, podId, removed?}; `toolgate:events:health`
 * {client, podId, state, error?} when a pod sees a client fail; `toolgate:events:clients`
 * {op: "upsert"|"delete", id, podId}; `toolgate:events:tools-changed` {client, podId}.
 *
 * Reading one client's fleet health without the gateway's code: `SCAN 0 MATCH
 * toolgate:health:<clientName>:* COUNT 500` (repeat until the cursor is 0), then `MGET` the
 * keys; an absent key means that pod stopped reporting (gone, or Redis lost it).
 *
 * Not shared, by design: upstream connections and stdio children (per pod), /mcp sessions
 * (self-contained signed ids), the tool registry itself (each pod builds it from its own
 * connections, seeded from the snapshots).
 */
import { z } from "zod";

import { ClientConfig } from "../config/schema.js";
import { SealedValue } from "./sealing.js";

export const keys = {
  snapshot: (clientName: string): string => `snapshot:${clientName}`,
  snapshotPrefix: "snapshot:",
  health: (clientName: string, podId: string): string =>
    `health:${clientName}:${podId}`,
  /** All pods' reports of one client; the trailing colon keeps `api` from matching `api2`. */
  healthOfClient: (clientName: string): string => `health:${clientName}:`,
  healthPrefix: "health:",
  runtimeClient: (id: string): string => `client:${id}`,
  runtimeClientPrefix: "client:",
  oauthFlow: (state: string): string => `oauth-flow:${state}`,
  oauthToken: (clientId: string): string => `oauth-token:${clientId}`,
  oauthStatus: (clientId: string): string => `oauth:${clientId}`,
  /** A lock *name*: `store.lock(name)` stores it at `lock:<name>`. */
  oauthRefreshLock: (clientId: string): string => `oauth-refresh:${clientId}`,
} as const;

export const channels = {
  snapshots: "events:snapshots",
  health: "events:health",
  clients: "events:clients",
  toolsChanged: "events:tools-changed",
} as const;

/** An MCP tool definition as the upstream sent it; only `name` is relied on. */
export const SnapshotTool = z.looseObject({ name: z.string().min(1) });
export type SnapshotTool = z.infer<typeof SnapshotTool>;

export const ToolSnapshot = z.object({
  client: z.string(),
  /** sha256 (hex) of the canonical JSON of `tools`. */
  hash: z.string(),
  tools: z.array(SnapshotTool),
  updatedAt: z.string(),
  podId: z.string(),
});
export type ToolSnapshot = z.infer<typeof ToolSnapshot>;

export const HealthState = z.enum([
  "connecting",
  "connected",
  "disconnected",
  "error",
]);
export type HealthState = z.infer<typeof HealthState>;

export const ClientHealthReport = z.object({
  client: z.string(),
  pod: z.string(),
  state: HealthState,
  consecutiveFailures: z.int().min(0),
  /** ISO time of this pod's last check of the client. */
  lastCheck: z.string(),
  /** ISO time of the last state change. */
  since: z.string(),
  toolCount: z.int().min(0),
  tools: z.array(z.string()),
  lastError: z.string().optional(),
  /** ISO time of the write (reports are rewritten before their TTL runs out). */
  updatedAt: z.string(),
});
export type ClientHealthReport = z.infer<typeof ClientHealthReport>;

/**
 * `config` in clear, or, when `state.encryption_key` is set, `sealed` (the config sealed with
 * AES-256-GCM, bound to the key `client:<id>`): a client's headers and OAuth secret stay out
 * of Redis in clear text.
 */
export const RuntimeClientRecord = z.union([
  z.object({ config: ClientConfig, updatedAt: z.string(), podId: z.string() }),
  z.object({ sealed: SealedValue, updatedAt: z.string(), podId: z.string() }),
]);
export type RuntimeClientRecord = z.infer<typeof RuntimeClientRecord>;

export const SnapshotEvent = z.object({
  client: z.string(),
  hash: z.string(),
  podId: z.string(),
  removed: z.boolean().optional(),
});
export const HealthEvent = z.object({
  client: z.string(),
  podId: z.string(),
  state: HealthState,
  error: z.string().optional(),
});
export const ClientsEvent = z.object({
  op: z.enum(["upsert", "delete"]),
  id: z.string(),
  podId: z.string(),
});
export const ToolsChangedEvent = z.object({
  client: z.string(),
  podId: z.string(),
});
export type ToolsChangedEvent = z.infer<typeof ToolsChangedEvent>;
