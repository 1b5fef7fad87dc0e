/**
 * Chat completions and the Responses API with MCP tools, provider queues and agent mode.
 *
 * Usage: `const chat = createChat(options); await app.register(chat.plugin);` and
 * `chat.setDropExcessRequests(v)` from PATCH /config.
 *
 * Decisions where SPEC is silent (kept here so the README can quote them):
 * - Agent mode applies to a request when a tool it may use is auto-executable (or an extra
 *   tool, such as the code-mode meta-tools, is offered); otherwise tool calls go back to the
 *   caller untouched (SPEC 9.1).
 * - Agent mode with `stream: true` runs the loop without streaming, then sends the final
 *   answer (or mixed response) as a complete SSE stream of the same API. Errors before that
 *   are ordinary HTTP errors; the caller never gets a half-streamed answer.
 * - Denial (SPEC 7): the caller answers a pending call with `{"denied": true, "reason"?: "..."}`
 *   as the tool result; the model sees an informative sentence instead.
 * - Skipped calls (tools of a known MCP client the request may not use) are not run; the
 *   model gets a result saying so and the loop goes on. They never reach the caller.
 * - At `max_agent_depth` model calls the last response is returned with its tool calls
 *   pending and unexecuted.
 * - Long or non-conforming function names: `<readable prefix>_<8 hex of sha256>` (64 chars),
 *   mapped back to `<client>_<tool>` in everything returned to the caller, streams included.
 * - `initial_pool_size`: the number of per-call context objects preallocated at start and
 *   reused by every provider call (see context-pool.ts). Provider connection pools hold at
 *   most `concurrency` keep-alive sockets per provider.
 * - Each agent iteration takes its own provider queue slot; tools run without holding one.
 */
export type { PoolStats } from "./context-pool.js";
export { CallContext, ContextPool } from "./context-pool.js";
export { functionName, MAX_FUNCTION_NAME } from "./function-names.js";
export type { Target } from "./providers.js";
export { resolveTarget } from "./providers.js";
export type { QueueStats, Release } from "./queue.js";
export { ProviderQueue } from "./queue.js";
export type { Chat, ChatOptions } from "./service.js";
export { createChat } from "./service.js";
export type {
  ExtraTool,
  ExtraToolContext,
  ExtraToolsInput,
  ExtraToolsProvider,
  OfferedTool,
  ToolOutcome,
  Toolset,
} from "./tools.js";
