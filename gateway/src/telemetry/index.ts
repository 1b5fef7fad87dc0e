// Public surface of telemetry: metrics registry, recorders, fastify plugins, price table.
export { CLIENT_CLOSED_STATUS, UNMATCHED_PATH } from "./http-plugin.js";
export { BASE_LABELS, MAX_CUSTOM_VALUE_LENGTH } from "./labels.js";
export type { MetricsRouteOptions } from "./metrics-route.js";
export {
  costOf,
  type Price,
  pricesFromConfig,
  type PriceTable,
} from "./prices.js";
export {
  createTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from "./telemetry.js";
export type * from "./types.js";
