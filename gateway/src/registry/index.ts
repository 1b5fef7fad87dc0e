export {
  isVisible,
  normaliseToolRef,
  parseToolHeaders,
  TOOL_FILTER_HEADERS,
} from "./filter.js";
export type { ToolSelector } from "./naming.js";
export {
  aggregateName,
  clientWildcard,
  splitAggregatedName,
  toolSelector,
} from "./naming.js";
export type { ClientTools, ToolInvoker } from "./tool-registry.js";
export { AggregatedToolRegistry } from "./tool-registry.js";
export type * from "./types.js";
