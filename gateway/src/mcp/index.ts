export { McpDispatcher, negotiateVersion, SERVER_INFO } from "./dispatch.js";
export { exceedsDepth, MAX_JSON_DEPTH } from "./json-depth.js";
export { classify, type Incoming, readMessage } from "./jsonrpc.js";
export { isOriginAllowed } from "./origin.js";
export {
  mcpPlugin,
  type McpRoutesOptions,
  toolHeaderFilter,
} from "./routes.js";
export { type SessionClaims, SessionSigner } from "./session.js";
export { CONNECTION_OPENED, SseHub, sseMessage } from "./sse-hub.js";
export type { CallContext, VirtualToolSource } from "./types.js";
export { RpcCode, rpcError } from "./wire-errors.js";
