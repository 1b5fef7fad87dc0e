/**
 * The chat service: `POST /v1/chat/completions` and `POST /v1/responses`, OpenAI-compatible.
 *
 * A request is validated (zod, only the fields used), its caller resolved (virtual key), its
 * provider found from `model` = `<provider>/<model>`, and the caller's allowed MCP tools are
 * appended to its own. Without auto-executable tools it is proxied (streams pass through
 * chunk for chunk); with them the agent loop runs (SPEC 9). Errors the gateway raises are
 * `{error: {code, message, details?}}`; errors of the provider come back as the provider sent
 * them, status and body.
 */
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from "fastify";
import fp from "fastify-plugin";
import type { Logger } from "pino";

import type { Dialect, Json } from "../agent/index.js";
import { chatDialect, responsesDialect, runAgent } from "../agent/index.js";
import type { SecretSource } from "../config/env.js";
import type { GatewayConfig } from "../config/schema.js";
import { durationMs, effectiveTuning } from "../config/schema.js";
import { GatewayError, isGatewayError } from "../errors.js";
import type { Caller, Governance, HeaderBag } from "../governance/types.js";
import type { ToolRegistry } from "../registry/types.js";
import type {
  McpRecorder,
  ProviderCallLabels,
  ProviderRecorder,
} from "../telemetry/types.js";
import { classifier } from "./classify.js";
import type { PoolStats } from "./context-pool.js";
import { ContextPool } from "./context-pool.js";
import { DropSetting } from "./drop-setting.js";
import { functionName } from "./function-names.js";
import type { Target } from "./providers.js";
import { Providers, resolveTarget } from "./providers.js";
import { forward, renameAliases } from "./proxy.js";
import type { QueueStats } from "./queue.js";
import {
  ChatBody,
  parseBody,
  ResponsesBody,
  wellFormedChat,
  wellFormedResponses,
} from "./schemas.js";
import { chatSse, responsesSse } from "./sse.js";
import type { ExtraToolsProvider, Toolset } from "./tools.js";
import {
  buildToolset,
  chatTools,
  configuredClients,
  responsesTools,
} from "./tools.js";
import type { CallDeps } from "./upstream-call.js";
import { openCall, readAll, UpstreamHttpError } from "./upstream-call.js";

export interface ChatOptions {
  readonly getConfig: () => GatewayConfig;
  readonly registry: ToolRegistry;
  readonly governance: Governance;
  readonly recorder?: ProviderRecorder | undefined;
  readonly mcpRecorder?: McpRecorder | undefined;
  /** Values of the custom Prometheus labels for a request (`x-bf-prom-<label>`). */
  readonly customLabels?:
    ((headers: HeaderBag) => Record<string, string>) | undefined;
  readonly logger: Logger;
  /** Where `env.` references of provider api keys resolve (default: the process). */
  readonly secrets?: SecretSource | undefined;
  /** More tools per request, with their executors (the code-mode meta-tools). */
  readonly extraTools?: ExtraToolsProvider | undefined;
  /**
   * Names of every MCP client the gateway knows (file and API clients), for the
   * `x-bf-mcp-*` headers and for telling skipped tool calls from foreign ones. Default: the
   * registry's `clientNames()` when it has one, else the clients of the config file.
   */
  readonly clientNames?: (() => ReadonlySet<string>) | undefined;
  /** SPEC 6.3: request id of each agent iteration; default `<parent-id>-<iteration>`. */
  readonly iterationRequestId?:
    ((parentId: string, iteration: number) => string) | undefined;
}

export interface Chat {
  /** Registers the two routes; closes provider pools on the app's close. */
  readonly plugin: FastifyPluginAsync;
  /** Runtime change of `drop_excess_requests` (PATCH /config). */
  setDropExcessRequests(value: boolean): void;
  readonly dropExcessRequests: boolean;
  queueStats(provider: string): QueueStats | undefined;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

class ClientGone extends Error {
  constructor() {
    super("the caller closed the connection");
    this.name = "ClientGone";
  }
}

interface Prepared {
  readonly caller: Caller;
  readonly config: GatewayConfig;
  readonly target: Target;
  readonly toolset: Toolset;
  readonly signal: AbortSignal;
  readonly requestId: string;
  readonly labels: ProviderCallLabels;
  readonly custom: Readonly<Record<string, string>>;
}

function requestSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort(new ClientGone());
  });
  return controller.signal;
}

function callerToolNames(
  tools:
    | readonly {
        type: string;
        function?: { name: string } | undefined;
        name?: string | undefined;
      }[]
    | null
    | undefined,
): ReadonlySet<string> {
  const names = new Set<string>();
  for (const t of tools ?? []) {
    const name = t.function?.name ?? t.name;
    if (name !== undefined) names.add(name);
  }
  return names;
}

/** Tool-call names in the caller's history become the aliases the model saw. */
function aliasHistory(messages: readonly Json[]): readonly Json[] {
  let out: Json[] | undefined;
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || !Array.isArray(m.tool_calls)) return;
    const calls = m.tool_calls as Json[];
    const renamed = calls.map((tc) => {
      const fn = tc.function as Json | undefined;
      const name = typeof fn?.name === "string" ? fn.name : undefined;
      return name !== undefined && functionName(name) !== name
        ? { ...tc, function: { ...fn, name: functionName(name) } }
        : tc;
    });
    if (renamed.some((tc, j) => tc !== calls[j])) {
      out ??= [...messages];
      out[i] = { ...m, tool_calls: renamed };
    }
  });
  return out ?? messages;
}

/**
 * Responses input items as the provider accepts them. Names of function calls become the
 * aliases the model saw. Items of a mixed response sent back by the caller are made plain
 * input: SPEC 4.5 gives them `role` on function calls and `type: "text"` message parts,
 * which OpenAI's input schema does not take, and ids the provider never stored.
 */
function normaliseInputItem(it: Json): Json {
  if (it.type === "function_call") {
    const name = typeof it.name === "string" ? functionName(it.name) : it.name;
    if (it.role === undefined && name === it.name) return it;
    const { role: _role, id, ...rest } = it;
    return it.role === undefined ? { ...rest, id, name } : { ...rest, name };
  }
  if (
    it.type === "message" &&
    it.role === "assistant" &&
    Array.isArray(it.content) &&
    (it.content as Json[]).some((p) => p.type === "text")
  ) {
    const { id: _id, ...rest } = it;
    return {
      ...rest,
      content: (it.content as Json[]).map((p) =>
        p.type === "text" ? { ...p, type: "output_text" } : p,
      ),
    };
  }
  return it;
}

function normaliseInput(input: unknown): unknown {
  if (!Array.isArray(input)) return input;
  const items = input as Json[];
  const out = items.map(normaliseInputItem);
  return out.some((it, i) => it !== items[i]) ? out : input;
}

export function createChat(options: ChatOptions): Chat {
  const { getConfig, registry, governance, logger } = options;
  const drop = new DropSetting(getConfig);
  const providers = new Providers(() => drop.get());
  const pool = new ContextPool(effectiveTuning(getConfig()).initialPoolSize);
  const deps: CallDeps = {
    providers,
    pool,
    recorder: options.recorder,
    secrets: options.secrets,
  };
  const clientNames = options.clientNames ?? registryClientNames(registry);
  const knownClients = (config: GatewayConfig): ReadonlySet<string> =>
    clientNames?.() ?? configuredClients(config);

  function prepare(
    req: FastifyRequest,
    reply: FastifyReply,
    model: string,
    callerTools: ReadonlySet<string>,
  ): Prepared {
    const caller = governance.resolveCaller(req.headers);
    const config = getConfig();
    const target = resolveTarget(model, config);
    const toolset = buildToolset({
      registry,
      config,
      caller,
      headers: req.headers,
      callerTools,
      clients: knownClients(config),
      extraTools: options.extraTools,
    });
    const labels: ProviderCallLabels = {
      provider: target.provider,
      model: target.model,
      method: "chat",
      number_of_retries: 0,
      fallback_index: 0,
      ...(caller.virtualKey
        ? {
            virtual_key_id: caller.virtualKey.id,
            virtual_key_name: caller.virtualKey.name,
          }
        : {}),
    };
    const custom = options.customLabels?.(req.headers) ?? {};
    return {
      caller,
      config,
      target,
      toolset,
      signal: requestSignal(reply),
      requestId: req.id,
      labels,
      custom,
    };
  }

  async function proxy(
    reply: FastifyReply,
    p: Prepared,
    dialect: Dialect,
    body: Json,
    stream: boolean,
  ): Promise<void> {
    const call = await openCall(deps, {
      target: p.target,
      apiPath: dialect.apiPath,
      payload: JSON.stringify(body),
      requestId: p.requestId,
      signal: p.signal,
      labels: p.labels,
      custom: p.custom,
    });
    await forward(reply, call, stream, p.toolset.aliases);
  }

  async function callModel(
    p: Prepared,
    dialect: Dialect,
    request: Json,
    requestId: string,
  ): Promise<Json> {
    const call = await openCall(deps, {
      target: p.target,
      apiPath: dialect.apiPath,
      payload: JSON.stringify(request),
      requestId,
      signal: p.signal,
      labels: p.labels,
      custom: p.custom,
    });
    const buf = await readAll(call, (b) => tokensOf(dialect, b));
    if (call.status < 200 || call.status >= 300)
      throw new UpstreamHttpError(call.status, call.contentType, buf);
    try {
      const parsed: unknown = JSON.parse(buf.toString("utf8"));
      if (
        typeof parsed === "object" &&
        parsed !== null &&
        !Array.isArray(parsed)
      )
        return parsed as Json;
    } catch {
      // handled below
    }
    throw new GatewayError(
      "TG_ERR_UPSTREAM",
      `provider "${p.target.provider}" answered ${call.status} with a body that is not a JSON object`,
    );
  }

  async function agent(
    p: Prepared,
    dialect: Dialect,
    body: Json,
  ): Promise<Json> {
    const tm = p.config.mcp.tool_manager_config;
    const result = await runAgent(dialect, body, {
      maxDepth: tm.max_agent_depth,
      timeoutMs: durationMs(tm.tool_execution_timeout),
      parentRequestId: p.requestId,
      iterationRequestId: options.iterationRequestId,
      signal: p.signal,
      callModel: (request, ctx) =>
        callModel(p, dialect, request, ctx.requestId),
      classify: classifier({
        set: p.toolset,
        registry,
        caller: p.caller,
        clients: () => allClients(p.config),
      }),
    });
    options.mcpRecorder?.agentIterations(result.iterations);
    logger.debug(
      { reqId: p.requestId, iterations: result.iterations, stop: result.stop },
      "agent loop finished",
    );
    if (p.toolset.aliases.size === 0) return result.response;
    return JSON.parse(
      renameAliases(JSON.stringify(result.response), p.toolset.aliases),
    ) as Json;
  }

  function allClients(config: GatewayConfig): Iterable<string> {
    const names = new Set([
      ...configuredClients(config),
      ...knownClients(config),
    ]);
    for (const e of registry.list({ includeCodeMode: true }))
      names.add(e.client);
    return names;
  }

  async function chatCompletions(
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const body = parseBody(
      ChatBody,
      req.body,
      "chat completions",
      wellFormedChat,
    );
    const p = prepare(req, reply, body.model, callerToolNames(body.tools));
    const tools = chatTools(p.toolset);
    const out: Json = {
      ...body,
      model: p.target.model,
      messages: aliasHistory(body.messages),
    };
    if (tools.length > 0) out.tools = [...(body.tools ?? []), ...tools];
    if (!p.toolset.agent)
      return proxy(reply, p, chatDialect, out, body.stream === true);
    const response = await agent(p, chatDialect, out);
    if (body.stream === true)
      return sendSse(
        reply,
        chatSse(response, body.stream_options?.include_usage === true),
      );
    await reply.code(200).send(response);
  }

  async function responses(
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const body = parseBody(
      ResponsesBody,
      req.body,
      "responses",
      wellFormedResponses,
    );
    const p = prepare(req, reply, body.model, callerToolNames(body.tools));
    const tools = responsesTools(p.toolset);
    const out: Json = { ...body, model: p.target.model };
    if (body.input !== undefined) out.input = normaliseInput(body.input);
    if (tools.length > 0) out.tools = [...(body.tools ?? []), ...tools];
    if (!p.toolset.agent)
      return proxy(reply, p, responsesDialect, out, body.stream === true);
    const response = await agent(p, responsesDialect, out);
    if (body.stream === true) return sendSse(reply, responsesSse(response));
    await reply.code(200).send(response);
  }

  const handle =
    (fn: (req: FastifyRequest, reply: FastifyReply) => Promise<void>) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      try {
        await fn(req, reply);
      } catch (e) {
        await sendError(req, reply, e, logger);
      }
      return reply;
    };

  const plugin: FastifyPluginAsync = fp(
    async (app: FastifyInstance) => {
      const bodyLimit = getConfig().server.body_limit_mcp;
      app.post("/v1/chat/completions", { bodyLimit }, handle(chatCompletions));
      app.post("/v1/responses", { bodyLimit }, handle(responses));
      app.addHook("onClose", async () => providers.close());
      await Promise.resolve();
    },
    { name: "toolgate-chat", fastify: "5.x" },
  );

  return {
    plugin,
    setDropExcessRequests: (value) => drop.set(value),
    get dropExcessRequests() {
      return drop.get();
    },
    queueStats: (provider) => providers.queueStats(provider),
    poolStats: () => pool.stats,
    close: () => providers.close(),
  };
}

/** The registry's own list of client names, when the implementation offers one (AggregatedToolRegistry does). */
function registryClientNames(
  registry: ToolRegistry,
): (() => ReadonlySet<string>) | undefined {
  const candidate = registry as ToolRegistry & { clientNames?: unknown };
  if (typeof candidate.clientNames !== "function") return undefined;
  const fn = candidate.clientNames as () => ReadonlySet<string>;
  return () => fn.call(registry);
}

function tokensOf(
  dialect: Dialect,
  buf: Buffer,
): { input?: number; output?: number } | undefined {
  try {
    const usage = dialect.usage(JSON.parse(buf.toString("utf8")) as Json) as
      Record<string, unknown> | undefined;
    const input = usage?.prompt_tokens ?? usage?.input_tokens;
    const output = usage?.completion_tokens ?? usage?.output_tokens;
    return {
      ...(typeof input === "number" ? { input } : {}),
      ...(typeof output === "number" ? { output } : {}),
    };
  } catch {
    return undefined;
  }
}

async function sendSse(reply: FastifyReply, text: string): Promise<void> {
  await reply
    .code(200)
    .header("content-type", "text/event-stream; charset=utf-8")
    .header("cache-control", "no-cache")
    .send(text);
}

async function sendError(
  req: FastifyRequest,
  reply: FastifyReply,
  e: unknown,
  logger: Logger,
): Promise<void> {
  if (e instanceof ClientGone || (reply.raw.destroyed && !reply.sent)) {
    // Nobody is listening; tell fastify the reply is taken care of.
    reply.hijack();
    return;
  }
  if (reply.sent) {
    logger.warn(
      { reqId: req.id, err: e },
      "chat request failed after the response started",
    );
    return;
  }
  if (e instanceof UpstreamHttpError) {
    await reply
      .code(e.status)
      .header("content-type", e.contentType)
      .send(e.body);
    return;
  }
  if (isGatewayError(e)) {
    if (e.status >= 500)
      logger.error({ reqId: req.id, err: e }, "chat request failed");
    await reply.code(e.status).send({ error: e.toJSON() });
    return;
  }
  logger.error({ reqId: req.id, err: e }, "chat request failed");
  const internal = new GatewayError("TG_ERR_INTERNAL");
  await reply.code(internal.status).send({ error: internal.toJSON() });
}
