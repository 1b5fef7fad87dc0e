/**
 * The contract between the aggregated tool catalogue (registry/) and its readers (mcp/,
 * chat/, agent/, codemode/). The upstream layer fills the registry; readers take filtered,
 * immutable snapshots and call tools by their aggregated name. Snapshots share the upstream
 * tool objects: nothing here copies a schema per request.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

/** One upstream tool as the gateway serves it. Immutable; replaced as a whole on change. */
export interface ToolEntry {
  /** `<client_name>_<tool_name>`, SPEC 4.1. */
  readonly name: string;
  /** The MCP client's name (SPEC 2.1). */
  readonly client: string;
  /** The MCP client's id (its `id`, or its name when no id was given). */
  readonly clientId: string;
  /** The tool's name on the upstream server. */
  readonly tool: string;
  /** The upstream definition, unchanged (name, description, inputSchema, outputSchema, annotations). */
  readonly definition: Tool;
  /** Listed in the client's `tools_to_auto_execute`. */
  readonly autoExecute: boolean;
  /** The client is a code-mode client: reached only through the code-mode meta-tools. */
  readonly codeMode: boolean;
}

/** Which tools of which clients a virtual key allows (SPEC 2.4): client name -> "*" or tool names. */
export type ToolAllowance = ReadonlyMap<string, "*" | ReadonlySet<string>>;

/**
 * Filter applied to a snapshot. Every present field narrows the result; order (SPEC 4.4):
 * include clients, exclude clients, include tools, exclude tools, then the virtual key.
 * Tool names in include/exclude sets are aggregated names (`<client>_<tool>`) or a
 * client wildcard (`<client>_*`); the header parser normalises `<client>-<tool>` to these.
 */
export interface ToolFilter {
  readonly includeClients?: ReadonlySet<string>;
  readonly excludeClients?: ReadonlySet<string>;
  readonly includeTools?: ReadonlySet<string>;
  readonly excludeTools?: ReadonlySet<string>;
  readonly allowance?: ToolAllowance;
  /** Include tools of code-mode clients as direct tools (default false: they hide behind the meta-tools). */
  readonly includeCodeMode?: boolean;
}

export type RegistryChange =
  | {
      readonly kind: "client-tools";
      readonly client: string;
      readonly added: readonly string[];
      readonly removed: readonly string[];
      readonly changed: readonly string[];
    }
  | { readonly kind: "client-removed"; readonly client: string };

export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overrides `tool_execution_timeout` for this call. */
  readonly timeoutMs?: number;
  /** Request id for logs and audit. */
  readonly requestId?: string;
}

export interface ToolRegistry {
  /** Monotonic; changes whenever any tool is added, removed or changed. Readers cache by it. */
  readonly version: number;
  /**
   * All tools visible under the filter, in a stable order (client name, then tool name).
   * Without a filter: every direct tool (code-mode clients' tools need `includeCodeMode`);
   * that unfiltered list is cached per `version` and returned as the same frozen array.
   */
  list(filter?: ToolFilter): readonly ToolEntry[];
  /** The entry for an aggregated name, if the tool is currently offered (client connected, in tools_to_execute). */
  resolve(name: string): ToolEntry | undefined;
  /** Whether one entry passes a filter (used again at call time). */
  isVisible(entry: ToolEntry, filter: ToolFilter | undefined): boolean;
  /**
   * Call a tool by entry. Resolves with the upstream result unchanged; a timeout or transport
   * failure resolves with an `isError: true` result naming the client and the failure, never hangs.
   */
  call(
    entry: ToolEntry,
    args: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallToolResult>;
  /** Subscribe to changes; returns the unsubscribe function. */
  onChange(listener: (change: RegistryChange) => void): () => void;
}
