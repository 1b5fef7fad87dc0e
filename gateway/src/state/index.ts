// Public surface of the shared state: the store, its two backends, the key layout and the
// services built on it. See types.ts for the contract and keys.ts for the layout.
export type { StateStoreOptions } from "./create.js";
export {
  configuredRedisUrl,
  createStateStore,
  DEFAULT_NAMESPACE,
} from "./create.js";
export { ENVELOPE_VERSION } from "./envelope.js";
export type {
  ClusterEvents,
  ClusterEventsOptions,
  ToolsChangedListener,
} from "./events.js";
export { createClusterEvents } from "./events.js";
export type {
  ClientFleetHealth,
  ClientHealthInput,
  FleetHealth,
  FleetHealthOptions,
  FleetState,
  RecheckListener,
} from "./fleet-health.js";
export {
  createFleetHealth,
  DEFAULT_HEALTH_TTL_MS,
  summarize as summarizeClientHealth,
} from "./fleet-health.js";
export {
  ClientHealthReport,
  ClientsEvent,
  HealthEvent,
  HealthState,
  RuntimeClientRecord,
  SnapshotEvent,
  SnapshotTool,
  channels as stateChannels,
  keys as stateKeys,
  ToolsChangedEvent,
  ToolSnapshot,
} from "./keys.js";
export { MemoryHub } from "./memory-backend.js";
export { resolvePodId } from "./pod-id.js";
export { COMMAND_TIMEOUT_MS, redisTarget } from "./redis-target.js";
export type {
  ClientsListener,
  RuntimeClients,
  RuntimeClientsOptions,
} from "./runtime-clients.js";
export {
  createRuntimeClients,
  DEFAULT_RESYNC_INTERVAL_MS,
} from "./runtime-clients.js";
export type { Sealer } from "./sealing.js";
export { createSealer, SealedValue } from "./sealing.js";
export type {
  SnapshotListener,
  ToolSnapshots,
  ToolSnapshotsOptions,
} from "./tool-snapshots.js";
export { createToolSnapshots, toolsHash } from "./tool-snapshots.js";
export type * from "./types.js";
export type { UpdateOptions } from "./update.js";
export { updateValue } from "./update.js";
export { withLock } from "./with-lock.js";
