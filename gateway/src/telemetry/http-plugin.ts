/**
 * The fastify plugin behind SPEC 11.1. Recording happens in `onResponse`, which runs after the
 * response has been written to the socket, so it never delays the reply (SPEC 11: collection
 * adds no latency); `reply.elapsedTime` gives the duration.
 */
import type {
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
} from "fastify";
import fp from "fastify-plugin";

import type { HttpMetrics } from "./http-metrics.js";

/** `path` of requests that matched no route: the raw URL would make cardinality unbounded. */
export const UNMATCHED_PATH = "unmatched";

export interface HttpRecorderState {
  /** Read on every response, so a custom-label change applies to the next response. */
  current(): { readonly http: HttpMetrics };
  report(error: unknown): void;
}

function requestBytes(request: FastifyRequest): number {
  const header = request.headers["content-length"];
  if (header !== undefined) {
    const n = Number(header);
    if (Number.isFinite(n) && n >= 0) return n;
  }
  // Chunked uploads have no Content-Length; a text or binary body gives its size. A chunked JSON
  // body counts 0: re-serializing it on every request would cost more than the figure is worth.
  const body: unknown = request.body;
  if (typeof body === "string") return Buffer.byteLength(body);
  if (Buffer.isBuffer(body)) return body.length;
  return 0;
}

function responseBytes(reply: FastifyReply): number | undefined {
  // fastify sets Content-Length for every string, Buffer and serialized payload; a stream (SSE,
  // streamed chat) has none and its size is unknown here.
  const header = reply.getHeader("content-length");
  if (header === undefined) return undefined;
  const n = Number(header);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/**
 * The reply of each request, kept on the request: `onRequestAbort` receives only the request, and
 * the property doubles as the "not yet recorded" mark, so a request is recorded exactly once.
 */
const REPLY = Symbol("toolgate.httpMetrics.reply");
type Tracked = FastifyRequest & { [REPLY]?: FastifyReply | undefined };

/** nginx's "client closed request": the client went away before any response was sent. */
export const CLIENT_CLOSED_STATUS = 499;

export function httpMetricsPlugin(
  state: HttpRecorderState,
): FastifyPluginCallback {
  function record(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    responseSize: number | undefined,
  ): void {
    try {
      state
        .current()
        .http.record(
          request.routeOptions.url ?? UNMATCHED_PATH,
          request.method,
          status,
          request.headers,
          reply.elapsedTime / 1000,
          requestBytes(request),
          responseSize,
        );
    } catch (error) {
      state.report(error);
    }
  }

  const plugin: FastifyPluginCallback = (fastify, _opts, done) => {
    // Routes answered ahead of fastify (http/fast-lanes.ts) report here with the same figures.
    if (fastify.hasDecorator("fastLanes")) {
      fastify.fastLanes.observer = (
        route,
        method,
        status,
        headers,
        seconds,
        requestBytes,
        responseBytes,
      ) => {
        try {
          state
            .current()
            .http.record(
              route,
              method,
              status,
              headers,
              seconds,
              requestBytes,
              responseBytes,
            );
        } catch (error) {
          state.report(error);
        }
      };
    }
    fastify.addHook("onRequest", (request, reply, next) => {
      (request as Tracked)[REPLY] = reply;
      next();
    });
    fastify.addHook("onResponse", (request, reply, next) => {
      const tracked = request as Tracked;
      if (tracked[REPLY] !== undefined) {
        tracked[REPLY] = undefined;
        record(request, reply, reply.statusCode, responseBytes(reply));
      }
      next();
    });
    // A client that disconnects first (an SSE stream closed by the client, a cancelled chat)
    // never reaches onResponse. Counted with the status it was sent, or 499 when nothing was
    // sent yet; the response size is unknown.
    fastify.addHook("onRequestAbort", (request, next) => {
      const tracked = request as Tracked;
      const reply = tracked[REPLY];
      if (reply !== undefined) {
        tracked[REPLY] = undefined;
        record(
          request,
          reply,
          reply.raw.headersSent ? reply.statusCode : CLIENT_CLOSED_STATUS,
          undefined,
        );
      }
      next();
    });
    done();
  };
  // fastify-plugin: the hooks must see every route of the app, not only those in its own scope.
  return fp(plugin, { name: "toolgate-http-metrics", fastify: "5.x" });
}
