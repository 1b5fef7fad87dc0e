/**
 * Code mode as a service: the four meta-tools served through both seams, /mcp (a
 * `VirtualToolSource`) and chat (an `ExtraToolsProvider`, whose per-call classification is
 * SPEC 9.5). Each request sees the code-mode servers its caller may use; with none, no
 * meta-tool is offered. The config is read per call, so a reload of the binding level or
 * the timeout applies to the next call.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";

import type { ExtraTool, ExtraToolsProvider } from "../chat/tools.js";
import { durationMs, type GatewayConfig } from "../config/schema.js";
import type { VirtualToolSource } from "../mcp/types.js";
import type { ToolFilter, ToolRegistry } from "../registry/types.js";
import type { McpRecorder } from "../telemetry/types.js";
import { classifyCode } from "./auto-exec.js";
import { callerCatalog, type Catalog } from "./catalog.js";
import { toolDocs } from "./docs.js";
import { MetaToolError } from "./errors.js";
import { executeCode, type ExecuteOutcome } from "./execute.js";
import {
  argumentProblem,
  DEFINITIONS,
  EXECUTE_TOOL_CODE,
  ExecuteToolCodeArgs,
  GET_TOOL_DOCS,
  GetToolDocsArgs,
  LIST_TOOL_FILES,
  META_TOOL_NAMES,
  READ_TOOL_FILE,
  ReadToolFileArgs,
} from "./meta-tools.js";
import { fileLines, fileTree, readLines } from "./stubs.js";

export interface CodeModeOptions {
  readonly registry: ToolRegistry;
  readonly getConfig: () => GatewayConfig;
  readonly recorder?: McpRecorder | undefined;
  readonly logger: Logger;
}

export interface MetaCallContext {
  readonly filter: ToolFilter;
  readonly signal: AbortSignal;
  readonly requestId: string;
  /** Bound of executeToolCode; default the config's tool_execution_timeout. */
  readonly timeoutMs?: number;
}

export interface CodeMode {
  /** The meta-tools on /mcp. */
  readonly virtualTools: VirtualToolSource;
  /** The meta-tools in chat requests and agent mode. */
  readonly extraTools: ExtraToolsProvider;
  /** Runs one meta-tool; undefined when `name` is not one or the caller has no code-mode server. */
  call(
    name: string,
    args: Record<string, unknown>,
    ctx: MetaCallContext,
  ): Promise<CallToolResult> | undefined;
}

const TOOLS: readonly Tool[] = DEFINITIONS.map((d) => ({
  name: d.name,
  description: d.description,
  inputSchema: {
    type: "object",
    properties: d.inputSchema.properties as Record<string, object>,
    ...(d.inputSchema.required
      ? { required: [...d.inputSchema.required] }
      : {}),
  },
}));

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: t }],
  ...(isError ? { isError: true } : {}),
});

function outcomeResult(outcome: ExecuteOutcome): CallToolResult {
  if (outcome.status === "success") {
    const value = { result: outcome.result, logs: outcome.logs };
    return {
      content: [{ type: "text", text: JSON.stringify(value) }],
      structuredContent: value,
    };
  }
  const logs =
    outcome.logs.length > 0
      ? `\n\nlogs printed before the failure:\n${outcome.logs.join("\n")}`
      : "";
  return {
    content: [
      { type: "text", text: `executeToolCode failed: ${outcome.error}${logs}` },
    ],
    structuredContent: { error: outcome.error, logs: outcome.logs },
    isError: true,
  };
}

export function createCodeMode(options: CodeModeOptions): CodeMode {
  const { registry, getConfig, recorder, logger } = options;

  const level = (): "server" | "tool" =>
    getConfig().mcp.tool_manager_config.code_mode_binding_level;
  const defaultTimeout = (): number =>
    durationMs(getConfig().mcp.tool_manager_config.tool_execution_timeout);

  async function execute(
    args: Record<string, unknown>,
    catalog: Catalog,
    ctx: MetaCallContext,
  ): Promise<CallToolResult> {
    const parsed = ExecuteToolCodeArgs.safeParse(args);
    if (!parsed.success)
      return text(argumentProblem(EXECUTE_TOOL_CODE, parsed.error), true);
    const timeoutMs = ctx.timeoutMs ?? defaultTimeout();
    const outcome = await executeCode({
      code: parsed.data.code,
      catalog,
      registry,
      timeoutMs,
      signal: ctx.signal,
      requestId: ctx.requestId,
    });
    recorder?.codeModeExecution(outcome.status);
    logger.debug(
      {
        reqId: ctx.requestId,
        status: outcome.status,
        logs: outcome.logs.length,
      },
      "code mode script finished",
    );
    return outcomeResult(outcome);
  }

  function describe(
    name: string,
    args: Record<string, unknown>,
    catalog: Catalog,
  ): string {
    if (name === LIST_TOOL_FILES) return fileTree(catalog, level());
    if (name === READ_TOOL_FILE) {
      const parsed = ReadToolFileArgs.safeParse(args);
      if (!parsed.success)
        throw new MetaToolError(argumentProblem(READ_TOOL_FILE, parsed.error));
      const { fileName, startLine, endLine } = parsed.data;
      return readLines(
        fileLines(fileName, catalog, level()),
        fileName,
        startLine,
        endLine,
      );
    }
    const parsed = GetToolDocsArgs.safeParse(args);
    if (!parsed.success)
      throw new MetaToolError(argumentProblem(GET_TOOL_DOCS, parsed.error));
    return toolDocs(catalog, parsed.data.server, parsed.data.tool);
  }

  function run(
    name: string,
    args: Record<string, unknown>,
    catalog: Catalog,
    ctx: MetaCallContext,
  ): Promise<CallToolResult> {
    if (name === EXECUTE_TOOL_CODE) return execute(args, catalog, ctx);
    try {
      return Promise.resolve(text(describe(name, args, catalog)));
    } catch (err) {
      if (err instanceof MetaToolError)
        return Promise.resolve(text(err.message, true));
      throw err;
    }
  }

  const call: CodeMode["call"] = (name, args, ctx) => {
    if (!META_TOOL_NAMES.includes(name)) return undefined;
    const catalog = callerCatalog(registry, ctx.filter);
    if (catalog.servers.length === 0) return undefined;
    return run(name, args, catalog, ctx);
  };

  const virtualTools: VirtualToolSource = {
    get version() {
      return registry.version;
    },
    tools: (caller, filter) =>
      callerCatalog(registry, withAllowance(filter, caller.allowance)).servers
        .length > 0
        ? TOOLS
        : [],
    call: (name, args, ctx) =>
      call(name, args, {
        filter: withAllowance(ctx.filter, ctx.caller.allowance),
        signal: ctx.signal,
        requestId: ctx.requestId,
      }),
    onChange: (listener) => registry.onChange(() => listener()),
  };

  const extraTools: ExtraToolsProvider = ({ filter }) => {
    const catalog = callerCatalog(registry, filter);
    if (catalog.servers.length === 0) return [];
    return DEFINITIONS.map((d): ExtraTool => ({
      name: d.name,
      description: d.description,
      parameters: d.inputSchema,
      // SPEC 9.5: discovery is always automatic; a script only when all its calls are.
      classify: (args) =>
        d.name === EXECUTE_TOOL_CODE
          ? classifyCode(args.code, catalog)
          : "auto",
      execute: async (args, ctx) => {
        const result = await (call(d.name, args, {
          filter,
          signal: ctx.signal,
          requestId: ctx.requestId,
          timeoutMs: ctx.timeoutMs,
        }) ??
          Promise.resolve(
            text(
              "code mode is no longer available: no code-mode server is connected for you",
              true,
            ),
          ));
        const t = result.content
          .map((c) => (c.type === "text" ? c.text : JSON.stringify(c)))
          .join("\n");
        return { text: t, isError: result.isError === true };
      },
    }));
  };

  return { virtualTools, extraTools, call };
}

function withAllowance(
  filter: ToolFilter,
  allowance: ToolFilter["allowance"],
): ToolFilter {
  return allowance && !filter.allowance ? { ...filter, allowance } : filter;
}
