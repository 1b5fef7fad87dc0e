/**
 * SPEC 9.3 for the tools of one request. A call is:
 * - manual when it names a tool the caller sent itself, a gateway tool not in
 *   `tools_to_auto_execute`, an extra tool that says so for these arguments, or a name the
 *   gateway does not know at all (the caller may know it);
 * - skipped when it names a tool of a configured MCP client that this request may not use
 *   (not in `tools_to_execute`, not allowed by the virtual key, or filtered by headers);
 * - auto otherwise.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import type { Decision, ToolCall, ToolOutcome } from "../agent/index.js";
import type { Caller } from "../governance/types.js";
import type { ToolRegistry } from "../registry/types.js";
import type { Toolset } from "./tools.js";

const SKIP_REASON =
  "it is not among the tools this request may use (tools_to_execute, the virtual key or the x-bf-mcp-* headers exclude it)";

/** MCP content as text for the model: text parts verbatim, anything else as JSON. */
export function outcomeOf(result: CallToolResult): ToolOutcome {
  const parts: string[] = [];
  for (const c of result.content)
    parts.push(c.type === "text" ? c.text : JSON.stringify(c));
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return { text: parts.join("\n"), isError: result.isError === true };
}

function argsOf(call: ToolCall): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(call.arguments || "{}");
    return typeof v === "object" && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export interface ClassifyInput {
  readonly set: Toolset;
  readonly registry: ToolRegistry;
  readonly caller: Caller;
  /** Names of the MCP clients the gateway knows, for telling skipped calls from foreign ones. */
  readonly clients: () => Iterable<string>;
}

export function classifier(input: ClassifyInput): (call: ToolCall) => Decision {
  const { set, registry, caller } = input;
  return (call) => {
    if (set.callerTools.has(call.name)) return { kind: "manual" };
    const offered = set.byFunction.get(call.name);
    if (offered?.kind === "entry") {
      const entry = offered.entry;
      if (!entry.autoExecute) return { kind: "manual" };
      return {
        kind: "auto",
        label: entry.name,
        run: async (args, ctx) =>
          outcomeOf(
            await registry.call(entry, args, {
              signal: ctx.signal,
              timeoutMs: ctx.timeoutMs,
              requestId: ctx.requestId,
            }),
          ),
      };
    }
    if (offered?.kind === "extra") {
      const extra = offered.extra;
      if (extra.classify(argsOf(call)) === "manual") return { kind: "manual" };
      return {
        kind: "auto",
        label: extra.name,
        run: (args, ctx) => extra.execute(args, { ...ctx, caller }),
      };
    }
    for (const client of input.clients())
      if (call.name.startsWith(`${client}_`))
        return { kind: "skipped", reason: SKIP_REASON };
    return { kind: "manual" };
  };
}
