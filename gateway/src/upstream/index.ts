export type { ErrorClass } from "./classify.js";
export { classifyError, ClientConfigError } from "./classify.js";
export type { Clock } from "./clock.js";
export { systemClock } from "./clock.js";
export type { ConnectionSettings } from "./connection.js";
export { Connection, toolErrorResult } from "./connection.js";
export { discoverTools, invalidToolReason } from "./discovery.js";
export type { FleetAwareUpstreams } from "./manager.js";
export { connectionKey, createUpstreamManager, settingsOf } from "./manager.js";
export type { RetryOptions, RetryPolicy } from "./retry.js";
export {
  backoffDelay,
  RETRY_POLICY,
  RetryExhaustedError,
  withRetry,
} from "./retry.js";
export { createTransport, STDIO_BASE_ENV, stdioEnv } from "./transport.js";
export type {
  ClientState,
  ClientStatus,
  HealthCheck,
  ToolsOrigin,
  UpstreamManager,
  UpstreamOptions,
} from "./types.js";
