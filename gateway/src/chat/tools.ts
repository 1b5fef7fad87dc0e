/**
 * The tools a chat request offers the model: the caller's own tools first, unchanged, then the
 * MCP tools the caller may use (registry filter: headers, then the virtual key; code-mode
 * clients hidden), then extra tools (the code-mode meta-tools plug in here). A gateway tool
 * whose function name equals one the caller sent is left out: the caller's tool wins.
 *
 * Function-tool JSON is built once per registry entry (entries are immutable) and shared by
 * every request, so offering tools costs one array per request.
 */
import type { ToolOutcome } from "../agent/index.js";
import type { GatewayConfig } from "../config/schema.js";
import type { Caller, HeaderBag } from "../governance/types.js";
import { parseToolHeaders } from "../registry/index.js";
import type { ToolEntry, ToolFilter, ToolRegistry } from "../registry/types.js";
import { functionName } from "./function-names.js";

export type { ToolOutcome };

export interface ExtraToolContext {
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly caller: Caller;
  readonly timeoutMs: number;
}

/**
 * A tool the gateway offers besides registry entries (the code-mode meta-tools). It decides
 * per call whether agent mode may run it (SPEC 9.5: executeToolCode depends on the code).
 */
export interface ExtraTool {
  /** A valid function name (<= 64 of [a-zA-Z0-9_-]). */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments. */
  readonly parameters: Readonly<Record<string, unknown>>;
  classify(args: Record<string, unknown>): "auto" | "manual";
  execute(
    args: Record<string, unknown>,
    ctx: ExtraToolContext,
  ): Promise<ToolOutcome>;
}

export interface ExtraToolsInput {
  readonly caller: Caller;
  readonly headers: HeaderBag;
  readonly config: GatewayConfig;
  readonly filter: ToolFilter;
}

/** The seam for code mode: returns the extra tools of one request (none: empty array). */
export type ExtraToolsProvider = (
  input: ExtraToolsInput,
) => readonly ExtraTool[];

export type OfferedTool =
  | { readonly kind: "entry"; readonly name: string; readonly entry: ToolEntry }
  | {
      readonly kind: "extra";
      readonly name: string;
      readonly extra: ExtraTool;
    };

export interface Toolset {
  /** Function name sent to the model -> the tool behind it. */
  readonly byFunction: ReadonlyMap<string, OfferedTool>;
  /** Function names of the tools the caller sent itself. */
  readonly callerTools: ReadonlySet<string>;
  /** Alias -> aggregated name, for the names that needed an alias. Empty on the common path. */
  readonly aliases: ReadonlyMap<string, string>;
  /** Some offered tool may run automatically: the agent loop applies (SPEC 9.1). */
  readonly agent: boolean;
  readonly filter: ToolFilter;
  readonly entries: readonly ToolEntry[];
  readonly extras: readonly ExtraTool[];
}

export interface ToolsetInput {
  readonly registry: ToolRegistry;
  readonly config: GatewayConfig;
  readonly caller: Caller;
  readonly headers: HeaderBag;
  readonly callerTools: ReadonlySet<string>;
  /** Names of the known MCP clients, for reading `<client>-<tool>` in the headers. */
  readonly clients: ReadonlySet<string>;
  readonly extraTools?: ExtraToolsProvider | undefined;
}

const clientNamesCache = new WeakMap<GatewayConfig, ReadonlySet<string>>();

export function configuredClients(config: GatewayConfig): ReadonlySet<string> {
  let names = clientNamesCache.get(config);
  if (!names) {
    names = new Set(config.mcp.client_configs.map((c) => c.name));
    clientNamesCache.set(config, names);
  }
  return names;
}

export function buildToolset(input: ToolsetInput): Toolset {
  const { registry, caller, headers, callerTools } = input;
  const parsed = parseToolHeaders(headers, input.clients);
  const filter: ToolFilter = caller.allowance
    ? { ...parsed, allowance: caller.allowance, includeCodeMode: false }
    : { ...parsed, includeCodeMode: false };
  const listed = registry.list(filter);
  const byFunction = new Map<string, OfferedTool>();
  const aliases = new Map<string, string>();
  const entries: ToolEntry[] = [];
  let agent = false;
  for (const entry of listed) {
    const fn = functionName(entry.name);
    if (callerTools.has(fn) || byFunction.has(fn)) continue;
    byFunction.set(fn, { kind: "entry", name: entry.name, entry });
    if (fn !== entry.name) aliases.set(fn, entry.name);
    entries.push(entry);
    agent ||= entry.autoExecute;
  }
  const extras = offerExtras(input, filter, byFunction);
  // Extra tools decide per call (SPEC 9.5), and some are always auto: the loop must run.
  agent ||= extras.length > 0;
  return { byFunction, callerTools, aliases, agent, filter, entries, extras };
}

function offerExtras(
  input: ToolsetInput,
  filter: ToolFilter,
  byFunction: Map<string, OfferedTool>,
): ExtraTool[] {
  const extras: ExtraTool[] = [];
  const { caller, headers, config, callerTools } = input;
  for (const extra of input.extraTools?.({ caller, headers, config, filter }) ??
    []) {
    if (callerTools.has(extra.name) || byFunction.has(extra.name)) continue;
    byFunction.set(extra.name, { kind: "extra", name: extra.name, extra });
    extras.push(extra);
  }
  return extras;
}

type Json = Record<string, unknown>;

const chatDefs = new WeakMap<ToolEntry, Json>();
const responsesDefs = new WeakMap<ToolEntry, Json>();

function description(entry: ToolEntry): string {
  return entry.definition.description ?? entry.definition.title ?? entry.name;
}

/** Chat Completions function tools for the toolset, in offer order. */
export function chatTools(set: Toolset): Json[] {
  const out: Json[] = [];
  for (const entry of set.entries) {
    let def = chatDefs.get(entry);
    if (!def) {
      def = {
        type: "function",
        function: {
          name: functionName(entry.name),
          description: description(entry),
          parameters: entry.definition.inputSchema,
        },
      };
      chatDefs.set(entry, def);
    }
    out.push(def);
  }
  for (const x of set.extras)
    out.push({
      type: "function",
      function: {
        name: x.name,
        description: x.description,
        parameters: x.parameters,
      },
    });
  return out;
}

/** Responses API function tools; `strict: false` because MCP schemas are not written for strict mode. */
export function responsesTools(set: Toolset): Json[] {
  const out: Json[] = [];
  for (const entry of set.entries) {
    let def = responsesDefs.get(entry);
    if (!def) {
      def = {
        type: "function",
        name: functionName(entry.name),
        description: description(entry),
        parameters: entry.definition.inputSchema,
        strict: false,
      };
      responsesDefs.set(entry, def);
    }
    out.push(def);
  }
  for (const x of set.extras)
    out.push({
      type: "function",
      name: x.name,
      description: x.description,
      parameters: x.parameters,
      strict: false,
    });
  return out;
}
