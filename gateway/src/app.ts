/**
 * `buildApp(config, deps)`: the fastify instance with everything every endpoint shares
 * (logger and request ids, the error envelope, body limits, not-found) plus /health and
 * /ready. The feature plugins (/mcp, /api, /config, /v1, /metrics) are passed in `deps.plugins`
 * by main.ts (or a test), so this module stays free of I/O at import and of feature wiring.
 *
 * Body limits are set per route from its URL in an `onRoute` hook, so a plugin needs no
 * knowledge of them: `/mcp*` and `/v1/*` get `server.body_limit_mcp` (tool arguments and chat
 * histories are large), everything else `server.body_limit_api`. A route that sets its own
 * `bodyLimit` keeps it.
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createRequire } from "node:module";

import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyPluginCallback,
  type FastifyPluginOptions,
  type RouteOptions,
} from "fastify";
import type { Logger } from "pino";

import type { GatewayConfig } from "./config/schema.js";
import { errorHandler, notFoundHandler } from "./http/error-handler.js";
import { FastLanes } from "./http/fast-lanes.js";
import type { ClientState, ClientStatus } from "./upstream/index.js";

export interface AppPlugin {
  // Each feature plugin has its own options type; the list is heterogeneous by design.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
  readonly plugin: FastifyPluginAsync<any> | FastifyPluginCallback<any>;
  readonly options?: FastifyPluginOptions;
}

export interface AppDeps {
  readonly logger: Logger;
  /** Client states for /health; absent: no clients are reported. */
  readonly upstream?: {
    list(): readonly Pick<ClientStatus, "name" | "state">[];
  };
  /** /ready answers 200 only while this resolves; absent: ready as soon as the app is built. */
  readonly state?: { ping(): Promise<void> };
  /** Registered in order after the core routes (e.g. metrics hooks first, then /mcp, /api, /v1, /metrics). */
  readonly plugins?: readonly AppPlugin[];
  /** Reported by /health; default: the gateway package's version. */
  readonly version?: string;
  /** Bound on the state store's ping in /ready. */
  readonly readyTimeoutMs?: number;
}

/** An incoming `x-request-id` is kept when it looks like an id (so traces join up), never when it could forge log lines. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module "fastify" {
  interface FastifyInstance {
    /** Routes answered ahead of fastify (see http/fast-lanes.ts). */
    fastLanes: FastLanes;
  }
}

export function requestId(header: string | string[] | undefined): string {
  return typeof header === "string" && SANE_REQUEST_ID.test(header)
    ? header
    : randomUUID();
}

export function gatewayVersion(): string {
  const pkg = createRequire(import.meta.url)("../package.json") as {
    version?: string;
  };
  return pkg.version ?? "0.0.0";
}

const MCP_PREFIXES = ["/mcp", "/v1/"];

export function bodyLimitFor(url: string, config: GatewayConfig): number {
  const large = MCP_PREFIXES.some(
    (p) =>
      url === p ||
      url.startsWith(p.endsWith("/") ? p : `${p}/`) ||
      url.startsWith(`${p}?`),
  );
  return large ? config.server.body_limit_mcp : config.server.body_limit_api;
}

const HEALTH_SCHEMA = {
  response: {
    200: {
      type: "object",
      properties: {
        status: { type: "string", enum: ["ok", "degraded"] },
        version: { type: "string" },
        uptime_s: { type: "number" },
        clients: { type: "object", additionalProperties: { type: "string" } },
      },
      required: ["status", "version", "uptime_s", "clients"],
    },
  },
} as const;

const READY_RESPONSE = {
  type: "object",
  properties: { status: { type: "string" }, reason: { type: "string" } },
  required: ["status"],
} as const;

function withTimeout(p: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function registerHealth(app: FastifyInstance, deps: AppDeps): void {
  const version = deps.version ?? gatewayVersion();
  const started = performance.now();
  // Probes hit these every few seconds; their request lines would drown the log (errors still show).
  app.get("/health", { schema: HEALTH_SCHEMA, logLevel: "warn" }, () => {
    const clients: Record<string, ClientState> = {};
    for (const c of deps.upstream?.list() ?? []) clients[c.name] = c.state;
    // Liveness stays 200 while the process serves; a client being down is "degraded", not dead.
    const status = Object.values(clients).every((s) => s === "connected")
      ? "ok"
      : "degraded";
    return {
      status,
      version,
      uptime_s: Math.round((performance.now() - started) / 100) / 10,
      clients,
    };
  });
  app.get(
    "/ready",
    {
      schema: { response: { 200: READY_RESPONSE, 503: READY_RESPONSE } },
      logLevel: "warn",
    },
    async (_request, reply) => {
      if (!deps.state) return { status: "ready" };
      try {
        await withTimeout(deps.state.ping(), deps.readyTimeoutMs ?? 2000);
        return { status: "ready" };
      } catch (e) {
        return reply.status(503).send({
          status: "not_ready",
          reason: `state store unavailable: ${(e as Error).message}`,
        });
      }
    },
  );
}

/** fastify's own HTTP/1 server defaults (lib/server.js), kept when the app makes the server. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export async function buildApp(
  config: GatewayConfig,
  deps: AppDeps,
): Promise<FastifyInstance> {
  const lanes = new FastLanes(deps.logger, requestId);
  const app = Fastify({
    // The server is made here so the fast lanes (http/fast-lanes.ts) see each request before fastify does.
    serverFactory: (
      handler: (req: IncomingMessage, res: ServerResponse) => void,
    ) => {
      const server = createServer(lanes.listener(handler));
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      server.requestTimeout = 0;
      return server;
    },
    // fastify's instance type is parameterised by the logger; pino's Logger is a FastifyBaseLogger.
    loggerInstance: deps.logger,
    genReqId: (req) => requestId(req.headers["x-request-id"]),
    bodyLimit: config.server.body_limit_api,
    // Keep-alive sockets with no request in flight must not hold up a graceful close.
    forceCloseConnections: "idle",
    return503OnClosing: true,
    // A route schema with `additionalProperties: false` rejects unknown fields (400 naming them)
    // instead of fastify's default of silently dropping them: a typo is an error, as in the config.
    ajv: { customOptions: { removeAdditional: false } },
  }) as unknown as FastifyInstance;

  app.addHook("onRoute", (route: RouteOptions) => {
    route.bodyLimit ??= bodyLimitFor(route.url, config);
  });
  // Callback style: an async hook costs a promise on every request.
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("x-request-id", request.id);
    done();
  });
  // Once closing, responses to requests still in flight say `Connection: close`, so their
  // keep-alive sockets end with them instead of holding the close open until they time out.
  let closing = false;
  app.decorate("fastLanes", lanes);
  app.addHook("preClose", (done) => {
    closing = true;
    lanes.closing = true;
    done();
  });
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (closing) void reply.header("connection", "close");
    done(null, payload);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  registerHealth(app, deps);
  for (const { plugin, options } of deps.plugins ?? [])
    await app.register(plugin, options ?? {});
  return app;
}
