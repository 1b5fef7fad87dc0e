/** Chat completions and the Responses API with MCP tools, provider queues and agent mode. */
export type { PoolStats } from "./context-pool.js";
export { CallContext, ContextPool } from "./context-pool.js";
export { functionName, MAX_FUNCTION_NAME } from "./function-names.js";
export type { Target } from "./providers.js";
export { resolveTarget } from "./providers.js";
export type { QueueStats, Release } from "./queue.js";
export { ProviderQueue } from "./queue.js";
export type { Chat, ChatOptions } from "./service.js";
export { createChat } from "./service.js";
export type { ExtraTool, ExtraToolContext, ExtraToolsInput, ExtraToolsProvider, OfferedTool, ToolOutcome,Toolset } from "./tools.js";
