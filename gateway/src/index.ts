// Public surface of the gateway as an embedded library.
export * from "./config/schema.js";
export * from "./errors.js";
export type * from "./registry/types.js";
export * from "./state/index.js";
