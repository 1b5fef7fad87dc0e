/** Agent mode (SPEC 9): the loop, the two wire dialects and the mixed-response text. */
export { chatDialect } from "./chat-dialect.js";
export { denialText, parseDenial } from "./denial.js";
export { defaultIterationRequestId, runAgent } from "./loop.js";
export { MIXED_PREFIX, MIXED_SUFFIX, mixedContent } from "./mixed.js";
export { responsesDialect } from "./responses-dialect.js";
export type {
  AgentOptions,
  AgentResult,
  Decision,
  Dialect,
  Json,
  RunContext,
  ToolCall,
  ToolOutcome,
} from "./types.js";
export { addUsage } from "./usage.js";
