/**
 * Seams of the /mcp server. `VirtualToolSource` lets a part of the gateway serve tools that no
 * upstream has (code mode's four meta-tools) through the same tools/list and tools/call.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import type { Caller } from "../governance/types.js";
import type { ToolFilter } from "../registry/types.js";

export interface CallContext {
  readonly caller: Caller;
  readonly filter: ToolFilter;
  readonly signal: AbortSignal;
  readonly requestId: string;
}

export interface VirtualToolSource {
  /** Changes whenever `tools` may answer differently; /mcp caches tools/list by it. */
  readonly version: number;
  /** The extra tools this caller sees (already filtered for it). */
  tools(caller: Caller, filter: ToolFilter): readonly Tool[];
  /** A call to one of its tools, or undefined when the name is not one of them. */
  call(
    name: string,
    args: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<CallToolResult> | undefined;
  /** Subscribe to changes of `version`; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
}
