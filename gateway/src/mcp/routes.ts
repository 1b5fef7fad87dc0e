/**
 * /mcp over MCP's streamable HTTP transport, stateless: POST carries one JSON-RPC message and
 * gets a JSON answer (never an SSE upgrade: every method here answers in one message), GET
 * opens the notification stream, DELETE is refused with 405 since sessions hold no server
 * state. Any pod can answer any request; see session.ts for the session ids it issues.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";

import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from "fastify";
import fp from "fastify-plugin";

import { isGatewayError } from "../errors.js";
import type { Caller, Governance } from "../governance/types.js";
import type { LaneContext, LaneHandler } from "../http/fast-lanes.js";
import type { ToolFilter, ToolRegistry } from "../registry/types.js";
import { McpDispatcher } from "./dispatch.js";
import { MAX_JSON_DEPTH } from "./json-depth.js";
import { readMessage } from "./jsonrpc.js";
import { isOriginAllowed } from "./origin.js";
import { SessionSigner } from "./session.js";
import { SseHub } from "./sse-hub.js";
import type { CallContext, VirtualToolSource } from "./types.js";
import { RpcCode, rpcCodeFor, rpcError } from "./wire-errors.js";

export interface McpRoutesOptions {
  readonly registry: ToolRegistry;
  /** A getter, so a config reload that replaces the key set takes effect at once. */
  readonly governance: () => Governance;
  /** Tool filters a request's headers ask for (x-bf-mcp-include-... headers); ANDed with the caller's key. */
  readonly headerFilter?: (
    headers: FastifyRequest["headers"],
  ) => { filter: ToolFilter; key: string } | undefined;
  readonly virtual?: VirtualToolSource;
  readonly allowedOrigins: () => readonly string[];
  readonly bodyLimit: number;
  readonly sessionSecret?: string;
  readonly keepAliveMs?: number;
  readonly maxDepth?: number;
  readonly instructions?: string;
}

const JSON_TYPE = "application/json; charset=utf-8";
const SESSION_HEADER = "mcp-session-id";

interface Resolved {
  readonly ctxBase: Pick<CallContext, "caller" | "filter">;
  readonly filterKey: string;
}

function resolveCaller(
  opts: McpRoutesOptions,
  headers: IncomingHttpHeaders,
): Resolved {
  const caller: Caller = opts.governance().resolveCaller(headers);
  const fromHeaders = opts.headerFilter?.(headers);
  const filter: ToolFilter = fromHeaders
    ? {
        ...fromHeaders.filter,
        ...(caller.allowance ? { allowance: caller.allowance } : {}),
      }
    : caller.allowance
      ? { allowance: caller.allowance }
      : {};
  const filterKey = `${caller.virtualKey?.id ?? ""}|${fromHeaders?.key ?? ""}`;
  return { ctxBase: { caller, filter }, filterKey };
}

function sendRpc(
  reply: FastifyReply,
  status: number,
  body: string,
): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(body);
}

/** One /mcp answer, whichever path (fastify route or fast lane) writes it. */
interface Answer {
  readonly status: number;
  /** Serialised JSON-RPC; empty for 202. */
  readonly body: string;
  readonly sessionId?: string;
}

interface PostInput {
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly log: () => FastifyBaseLogger;
}

function failure(err: unknown, log: () => FastifyBaseLogger): Answer {
  if (isGatewayError(err))
    return {
      status: err.status,
      body: rpcError(null, rpcCodeFor(err.code, err.status), err.message),
    };
  log().error({ err }, "mcp request failed");
  return {
    status: 500,
    body: rpcError(null, RpcCode.InternalError, "Internal error"),
  };
}

/** The session check: a presented id must be genuine and belong to this caller's key. */
function sessionMismatch(
  sessions: SessionSigner,
  headers: IncomingHttpHeaders,
  caller: Caller,
): boolean {
  const sessionId = headers[SESSION_HEADER];
  if (typeof sessionId !== "string") return false;
  const claims = sessions.verify(sessionId);
  return !claims || claims.keyId !== (caller.virtualKey?.id ?? "");
}

function originRefusal(
  opts: McpRoutesOptions,
  origin: string | undefined,
): Answer | undefined {
  if (origin === undefined || isOriginAllowed(origin, opts.allowedOrigins()))
    return undefined;
  return {
    status: 403,
    body: rpcError(
      null,
      RpcCode.Forbidden,
      `Origin ${origin} is not allowed; add it to client.allowed_origins`,
    ),
  };
}

const tooLarge = (limit: number): Answer => ({
  status: 413,
  body: rpcError(
    null,
    RpcCode.RequestTooLarge,
    `Request body is larger than ${limit} bytes`,
  ),
});

/** An AbortSignal that fires if the client goes away before the answer is written. */
function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished)
      controller.abort(new Error("the MCP client disconnected"));
  });
  return controller.signal;
}

async function answerPost(
  opts: McpRoutesOptions,
  dispatcher: McpDispatcher,
  sessions: SessionSigner,
  input: PostInput,
): Promise<Answer> {
  let resolved: Resolved;
  try {
    resolved = resolveCaller(opts, input.headers);
  } catch (err) {
    return failure(err, input.log);
  }
  if (sessionMismatch(sessions, input.headers, resolved.ctxBase.caller)) {
    return {
      status: 404,
      body: rpcError(
        null,
        RpcCode.SessionNotFound,
        "Session not found; initialize a new session",
      ),
    };
  }
  const msg = readMessage(input.text, opts.maxDepth ?? MAX_JSON_DEPTH);
  if (msg.kind === "invalid") {
    // Unreadable messages are HTTP 400 (the transport's rule); a readable request with a bad shape keeps 200.
    return {
      status: msg.id === null ? 400 : 200,
      body: rpcError(msg.id, msg.code, msg.message),
    };
  }
  if (msg.kind !== "request") return { status: 202, body: "" };
  const ctx: CallContext = {
    ...resolved.ctxBase,
    signal: input.signal,
    requestId: input.requestId,
  };
  const result = await dispatcher.request(
    msg.id,
    msg.method,
    msg.params,
    ctx,
    resolved.filterKey,
  );
  if (result.initializedVersion === undefined)
    return { status: 200, body: result.body };
  return {
    status: 200,
    body: result.body,
    sessionId: sessions.issue(
      resolved.ctxBase.caller.virtualKey?.id,
      result.initializedVersion,
    ),
  };
}

async function handlePost(
  opts: McpRoutesOptions,
  dispatcher: McpDispatcher,
  sessions: SessionSigner,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const text = typeof request.body === "string" ? request.body : "";
  const answer = await answerPost(opts, dispatcher, sessions, {
    headers: request.headers,
    text,
    requestId: request.id,
    signal: disconnectSignal(reply.raw),
    log: () => request.log,
  });
  if (answer.status === 202) return reply.code(202).send();
  if (answer.sessionId !== undefined)
    reply.header(SESSION_HEADER, answer.sessionId);
  return sendRpc(reply, answer.status, answer.body);
}

function sendAnswer(ctx: LaneContext, answer: Answer): void {
  if (answer.status === 202) ctx.send(202, "");
  else
    ctx.send(
      answer.status,
      answer.body,
      answer.sessionId === undefined
        ? undefined
        : { [SESSION_HEADER]: answer.sessionId },
    );
}

/**
 * POST /mcp as a fast lane: the same answers as the fastify route (origin check, body limit,
 * answerPost), read and written on the raw request and response.
 */
function postLane(
  opts: McpRoutesOptions,
  dispatcher: McpDispatcher,
  sessions: SessionSigner,
): LaneHandler {
  return (req, res, ctx) => {
    const refused = originRefusal(opts, req.headers.origin);
    if (refused) return sendAnswer(ctx, refused);
    const limit = opts.bodyLimit;
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) {
      // The body is left unread, so the connection cannot carry another request.
      res.shouldKeepAlive = false;
      return sendAnswer(ctx, tooLarge(limit));
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off("data", onData);
      res.shouldKeepAlive = false;
      sendAnswer(ctx, tooLarge(limit));
    };
    req.on("data", onData);
    req.once("end", () => {
      if (size > limit) return;
      ctx.requestBytes = size;
      const text =
        chunks.length === 1
          ? (chunks[0] as Buffer).toString("utf8")
          : Buffer.concat(chunks).toString("utf8");
      answerPost(opts, dispatcher, sessions, {
        headers: req.headers,
        text,
        requestId: ctx.requestId,
        signal: disconnectSignal(res),
        log: () => ctx.log(),
      }).then(
        (answer) => sendAnswer(ctx, answer),
        (err: unknown) =>
          sendAnswer(
            ctx,
            failure(err, () => ctx.log()),
          ),
      );
    });
  };
}

async function mcpRoutes(
  app: FastifyInstance,
  opts: McpRoutesOptions,
): Promise<void> {
  const dispatcher = new McpDispatcher(
    opts.registry,
    opts.virtual,
    opts.instructions,
  );
  const sessions = new SessionSigner(opts.sessionSecret);
  const hub = new SseHub(
    (ctx) => dispatcher.visibleNames(ctx),
    opts.keepAliveMs ?? 15_000,
  );
  const unsubscribe = [opts.registry.onChange(() => hub.changed())];
  if (opts.virtual)
    unsubscribe.push(opts.virtual.onChange(() => hub.changed()));
  app.addHook("onClose", () => {
    for (const u of unsubscribe) u();
    hub.close();
  });
  app.decorate("mcpStreams", { count: () => hub.size });
  // The fastify route below stays for app.inject() and for apps built without fast lanes.
  if (app.hasDecorator("fastLanes"))
    app.fastLanes.add("POST", "/mcp", postLane(opts, dispatcher, sessions));

  await app.register((scope, _scopeOpts, scopeDone) => {
    // The body reaches the handler as text: JSON-RPC parse errors must be JSON-RPC answers.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "string", bodyLimit: opts.bodyLimit },
      (_req, body, done) => done(null, body),
    );
    scope.setErrorHandler((err, request, reply) => {
      const status =
        typeof (err as { statusCode?: unknown }).statusCode === "number"
          ? (err as { statusCode: number }).statusCode
          : 500;
      if (status === 413)
        return sendRpc(reply, 413, tooLarge(opts.bodyLimit).body);
      if (status >= 500)
        return sendRpc(reply, 500, failure(err, () => request.log).body);
      return sendRpc(
        reply,
        status,
        rpcError(null, RpcCode.InvalidRequest, (err as Error).message),
      );
    });
    scope.addHook("onRequest", (request, reply, done) => {
      const refused = originRefusal(opts, request.headers.origin);
      // Answering here ends the request; fastify skips the handler when a hook has replied.
      if (refused) sendRpc(reply, refused.status, refused.body);
      else done();
    });

    scope.post("/mcp", (request, reply) =>
      handlePost(opts, dispatcher, sessions, request, reply),
    );

    scope.get("/mcp", async (request, reply) => {
      const accept = request.headers.accept ?? "";
      if (!accept.includes("text/event-stream") && !accept.includes("*/*")) {
        return sendRpc(
          reply,
          406,
          rpcError(
            null,
            RpcCode.InvalidRequest,
            "GET /mcp opens an event stream; send Accept: text/event-stream",
          ),
        );
      }
      let resolved: Resolved;
      try {
        resolved = resolveCaller(opts, request.headers);
      } catch (err) {
        const answer = failure(err, () => request.log);
        return sendRpc(reply, answer.status, answer.body);
      }
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache, no-transform",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      const remove = hub.add(
        { write: (chunk) => raw.write(chunk) },
        resolved.ctxBase.caller,
        resolved.ctxBase.filter,
        resolved.filterKey,
      );
      request.raw.once("close", remove);
      raw.once("close", remove);
      return reply;
    });

    scope.delete("/mcp", async (_request, reply) =>
      reply
        .code(405)
        .header("allow", "GET, POST")
        .type(JSON_TYPE)
        .send(
          rpcError(
            null,
            RpcCode.InvalidRequest,
            "sessions hold no server state; there is nothing to delete",
          ),
        ),
    );
    scopeDone();
  });
}

declare module "fastify" {
  interface FastifyInstance {
    mcpStreams: { count(): number };
  }
}

export const mcpPlugin = fp(mcpRoutes, {
  name: "toolgate-mcp",
  fastify: "5.x",
});

const FILTER_HEADERS = [
  "x-bf-mcp-include-clients",
  "x-bf-mcp-exclude-clients",
  "x-bf-mcp-include-tools",
  "x-bf-mcp-exclude-tools",
] as const;

/**
 * The `headerFilter` option for a registry: undefined (no work at all) when a request has none
 * of the x-bf-mcp-* headers, else the parsed filter and a cache key made of the raw values.
 */
export function toolHeaderFilter(
  parse: (headers: FastifyRequest["headers"]) => ToolFilter,
): (
  headers: FastifyRequest["headers"],
) => { filter: ToolFilter; key: string } | undefined {
  return (headers) => {
    let key = "";
    for (const h of FILTER_HEADERS) {
      const v = headers[h];
      if (v !== undefined) key += `${h}=${String(v)};`;
    }
    return key === "" ? undefined : { filter: parse(headers), key };
  };
}
