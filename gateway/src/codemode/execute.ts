/**
 * executeToolCode (SPEC 10.3-10.5): runs a model's Starlark script with one global object per
 * code-mode server the caller may use. `server.tool(k=v)` (or one dict) is an awaited call
 * through the registry, the normal upstream path with its per-call timeout; the whole script
 * is bounded by `tool_execution_timeout` and the interpreter's step and memory limits. The
 * script is parsed and resolved before anything runs, so a syntax error or an undefined name
 * costs no tool call. `print` goes to `logs` and the global `result` is the value.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  ALL_OPTIONS,
  EvalError,
  execFile,
  HostObject,
  jsonModule,
  type JsonValue,
  parse,
  ResolveError,
  StarlarkError,
  str,
  toJS,
  toolFunction,
  type Value,
  walk,
} from "@toolgate/starlark";

import type { ToolRegistry } from "../registry/types.js";
import type { Catalog, CatalogServer, CatalogTool } from "./catalog.js";
import { syntaxMessage, undefinedServerMessage } from "./script-errors.js";

export const SCRIPT_NAME = "code.star";

/** The dialect code mode runs: Python habits that Starlark can support are on. */
export const CODE_OPTIONS = { ...ALL_OPTIONS, loadbindsglobally: false };

/** Globals besides the servers: the json module (a server of that name wins). */
const EXTRA_GLOBALS: ReadonlyMap<string, Value> = new Map<string, Value>([
  ["json", jsonModule],
]);

/** Whether a name is predeclared for a script of this catalogue (the auto-execution check resolves with it too). */
export function isPredeclared(catalog: Catalog, name: string): boolean {
  return catalog.get(name) !== undefined || EXTRA_GLOBALS.has(name);
}

export interface ExecuteInput {
  readonly code: string;
  readonly catalog: Catalog;
  readonly registry: ToolRegistry;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly requestId: string;
}

export type ExecuteOutcome =
  | {
      readonly status: "success";
      readonly result: JsonValue;
      readonly logs: readonly string[];
    }
  | {
      readonly status: "error" | "timeout";
      readonly error: string;
      readonly logs: readonly string[];
    };

/**
 * A server object. Its type name is the server's name, so the interpreter's error for a
 * missing tool reads "everything has no .foo field or method (did you mean ...)", and
 * hasattr/getattr with a default keep working.
 */
class ServerObject extends HostObject {
  constructor(name: string, members: Iterable<[string, Value]>) {
    super(name, members, name);
  }
  override repr(): string {
    return `<server ${this.label}>`;
  }
}

/** A tool result as a script sees it: structured content, else JSON text parsed, else the text. */
export function toolValue(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const texts = result.content
    .filter((c) => c.type === "text")
    .map((c) => c.text);
  if (texts.length === 0) return { content: result.content };
  const text = texts.join("\n");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function errorText(result: CallToolResult): string {
  const text = result.content
    .map((c) => (c.type === "text" ? c.text : JSON.stringify(c)))
    .join("\n")
    .trim();
  return text || "the tool reported an error without a message";
}

function serverObject(
  server: CatalogServer,
  call: (
    tool: CatalogTool,
    params: Record<string, unknown>,
  ) => Promise<unknown>,
): ServerObject {
  const members: [string, Value][] = [...server.tools.values()].map((tool) => [
    tool.id,
    toolFunction(`${server.name}.${tool.id}`, (params) => call(tool, params)),
  ]);
  return new ServerObject(server.name, members);
}

function resultOf(v: Value | undefined): JsonValue {
  if (v === undefined) return null;
  try {
    return toJS(v);
  } catch {
    // A value with no JSON form (a function, a server object): its string form.
    return str(v);
  }
}

/** Names used as `name.attr`: an undefined one is a server the script expected. */
function dotReceivers(code: string): Set<string> {
  const names = new Set<string>();
  walk(parse(SCRIPT_NAME, code, CODE_OPTIONS), (n) => {
    if (n.kind === "Dot" && n.x.kind === "Ident") names.add(n.x.name);
  });
  return names;
}

function resolveMessage(
  err: ResolveError,
  code: string,
  catalog: Catalog,
): string {
  const all = (err as ResolveError & { errors?: ResolveError[] }).errors ?? [
    err,
  ];
  const receivers = dotReceivers(code);
  const lines = all.map((e) => {
    const name = /^undefined: ([A-Za-z_][A-Za-z0-9_]*)/.exec(e.msg)?.[1];
    return name !== undefined && receivers.has(name)
      ? undefinedServerMessage(e, name, catalog)
      : e.message;
  });
  return `the script was not run: ${lines.join("\n")}`;
}

/** For a missing tool, the tools this caller may use on that server. */
function missingToolHint(msg: string, catalog: Catalog): string {
  const m =
    /^([A-Za-z_][A-Za-z0-9_]*) has no \.([A-Za-z0-9_]+) field or method/.exec(
      msg,
    );
  const server = m?.[1] === undefined ? undefined : catalog.get(m[1]);
  if (!server) return "";
  const tools = [...server.tools.keys()];
  return `\nServer ${server.name} has no tool "${m?.[2] ?? ""}" available to you; its tools: ${tools.length > 0 ? tools.join(", ") : "none"} (see readToolFile).`;
}

function describe(
  err: unknown,
  code: string,
  catalog: Catalog,
  timeoutMs: number,
): string {
  if (err instanceof ResolveError) return resolveMessage(err, code, catalog);
  if (err instanceof EvalError) {
    const where =
      (err.callStack.length > 1 ? err.backtrace() : err.message) +
      missingToolHint(err.msg, catalog);
    if (err.isLimit && /timeout/.test(err.msg)) {
      return `${where}\nThe whole script is bounded by tool_execution_timeout (${timeoutMs} ms): make fewer or faster tool calls, and check for loops that never end.`;
    }
    return where;
  }
  const syntax = syntaxMessage(err);
  if (syntax !== undefined) return syntax;
  return err instanceof Error ? err.message : String(err);
}

export async function executeCode(
  input: ExecuteInput,
): Promise<ExecuteOutcome> {
  const { code, catalog, registry, timeoutMs, requestId } = input;
  const logs: string[] = [];
  // Aborts tool calls still running when the script's time is up.
  const deadline = AbortSignal.timeout(timeoutMs);
  const callSignal = AbortSignal.any([input.signal, deadline]);
  const call = async (
    tool: CatalogTool,
    params: Record<string, unknown>,
  ): Promise<unknown> => {
    const r = await registry.call(tool.entry, params, {
      signal: callSignal,
      timeoutMs,
      requestId,
    });
    if (r.isError === true)
      throw new StarlarkError(`tool error: ${errorText(r)}`);
    return toolValue(r);
  };
  const predeclared = new Map<string, Value>(EXTRA_GLOBALS);
  for (const s of catalog.servers)
    predeclared.set(s.name, serverObject(s, call));
  try {
    const { globals } = await execFile({
      filename: SCRIPT_NAME,
      source: code,
      predeclared,
      options: CODE_OPTIONS,
      limits: { timeoutMs },
      signal: input.signal,
      print: (msg) => void logs.push(msg),
    });
    return { status: "success", result: resultOf(globals.get("result")), logs };
  } catch (err) {
    const timedOut =
      deadline.aborted ||
      (err instanceof EvalError && err.isLimit && /timeout/.test(err.msg));
    return {
      status: timedOut ? "timeout" : "error",
      error: describe(err, code, catalog, timeoutMs),
      logs,
    };
  }
}
