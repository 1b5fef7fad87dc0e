// Public surface of the gateway as an embedded library.
export * from "./agent/index.js";
export * from "./chat/index.js";
export * from "./config/schema.js";
export * from "./errors.js";
export * from "./registry/index.js";
export * from "./state/index.js";
export * from "./telemetry/index.js";
export * from "./upstream/index.js";
