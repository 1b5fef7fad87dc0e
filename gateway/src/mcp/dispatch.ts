/**
 * The MCP methods Toolgate serves on /mcp, without an SDK Server per request: the hot path
 * (tools/call) resolves the aggregated name, checks visibility for the caller and hands the
 * upstream result back as it came. tools/list answers come from a cache of serialised lists
 * keyed by registry version and caller filter, so a repeated list costs one string concat.
 */
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";

import type { ToolRegistry } from "../registry/types.js";
import type { CallContext, VirtualToolSource } from "./types.js";
import { RpcCode, rpcError } from "./wire-errors.js";

export const SERVER_INFO = { name: "toolgate", version: "0.1.0" } as const;

const MAX_CACHED_LISTS = 512;

export interface DispatchResult {
  /** Serialised JSON-RPC response. */
  readonly body: string;
  /** For initialize: the negotiated protocol version (a session id is issued for it). */
  readonly initializedVersion?: string;
}

export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" &&
    SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

const ok = (id: string | number, resultJson: string): string =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;

/** The tool name and arguments of a tools/call, or the message saying what is wrong with them. */
function readCallParams(
  params: Record<string, unknown>,
): { name: string; args: Record<string, unknown> } | string {
  const name = params.name;
  if (typeof name !== "string" || name === "")
    return "Invalid params: tools/call needs params.name, the tool's name as a string";
  const args = params.arguments ?? {};
  if (typeof args !== "object" || args === null || Array.isArray(args))
    return `Invalid params: arguments of tool ${name} must be an object`;
  return { name, args: args as Record<string, unknown> };
}

export class McpDispatcher {
  private cacheStamp = "";
  private readonly listCache = new Map<string, string>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly virtual?: VirtualToolSource,
    private readonly instructions?: string,
  ) {}

  async request(
    id: string | number,
    method: string,
    params: Record<string, unknown>,
    ctx: CallContext,
    filterKey: string,
  ): Promise<DispatchResult> {
    switch (method) {
      case "tools/call":
        return { body: await this.callTool(id, params, ctx) };
      case "tools/list":
        return { body: ok(id, this.toolsListJson(ctx, filterKey)) };
      case "ping":
        return { body: ok(id, "{}") };
      case "initialize":
        return this.initialize(id, params);
      default:
        return {
          body: rpcError(
            id,
            RpcCode.MethodNotFound,
            `Method not found: ${method}`,
          ),
        };
    }
  }

  private initialize(
    id: string | number,
    params: Record<string, unknown>,
  ): DispatchResult {
    const version = negotiateVersion(params.protocolVersion);
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: { tools: { listChanged: true } },
      serverInfo: SERVER_INFO,
    };
    if (this.instructions) result.instructions = this.instructions;
    return {
      body: ok(id, JSON.stringify(result)),
      initializedVersion: version,
    };
  }

  /** The serialised `{"tools":[...]}` visible to this caller, cached per registry version and filter. */
  toolsListJson(ctx: CallContext, filterKey: string): string {
    const stamp = `${this.registry.version}:${this.virtual?.version ?? 0}`;
    if (stamp !== this.cacheStamp) {
      this.listCache.clear();
      this.cacheStamp = stamp;
    }
    const hit = this.listCache.get(filterKey);
    if (hit !== undefined) return hit;
    const tools: unknown[] = this.registry
      .list(ctx.filter)
      .map((e) => ({ ...e.definition, name: e.name }));
    if (this.virtual) tools.push(...this.virtual.tools(ctx.caller, ctx.filter));
    const json = JSON.stringify({ tools });
    if (this.listCache.size >= MAX_CACHED_LISTS) this.listCache.clear();
    this.listCache.set(filterKey, json);
    return json;
  }

  /** The names visible to a caller, for SSE change detection. */
  visibleNames(ctx: Pick<CallContext, "caller" | "filter">): string {
    const names = this.registry.list(ctx.filter).map((e) => e.name);
    if (this.virtual)
      for (const t of this.virtual.tools(ctx.caller, ctx.filter))
        names.push(t.name);
    return names.join("\n");
  }

  private async callTool(
    id: string | number,
    params: Record<string, unknown>,
    ctx: CallContext,
  ): Promise<string> {
    const call = readCallParams(params);
    if (typeof call === "string")
      return rpcError(id, RpcCode.InvalidParams, call);
    const entry = this.registry.resolve(call.name);
    if (entry && this.registry.isVisible(entry, ctx.filter)) {
      const result = await this.registry.call(entry, call.args, {
        signal: ctx.signal,
        requestId: ctx.requestId,
      });
      return ok(id, JSON.stringify(result));
    }
    const virtual = this.virtual?.call(call.name, call.args, ctx);
    if (virtual) return ok(id, JSON.stringify(await virtual));
    return rpcError(
      id,
      RpcCode.InvalidParams,
      `Unknown tool: ${call.name} (not offered to this caller; see tools/list)`,
    );
  }
}
