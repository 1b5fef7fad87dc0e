// Public surface of the shared state: the store, its two backends, the key layout and the
// services built on it. See types.ts for the contract and keys.ts for the layout.
export type { StateStoreOptions } from "./create.js";
export { configuredRedisUrl, createStateStore, DEFAULT_NAMESPACE } from "./create.js";
export { ENVELOPE_VERSION } from "./envelope.js";
export * from "./keys.js";
export { MemoryHub } from "./memory-backend.js";
export { resolvePodId } from "./pod-id.js";
export { COMMAND_TIMEOUT_MS, redisTarget } from "./redis-target.js";
export type * from "./types.js";
