/**
 * The fastify plugin behind SPEC 11.1. One `onResponse` hook: it runs after the response has been
 * written to the socket, so recording never delays the reply (SPEC 11: collection adds no
 * latency), and `reply.elapsedTime` gives the duration without an `onRequest` hook of our own.
 */
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify";
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

export function httpMetricsPlugin(state: HttpRecorderState): FastifyPluginCallback {
  const plugin: FastifyPluginCallback = (fastify, _opts, done) => {
    fastify.addHook("onResponse", (request, reply, next) => {
      try {
        state
          .current()
          .http.record(
            request.routeOptions.url ?? UNMATCHED_PATH,
            request.method,
            reply.statusCode,
            request.headers,
            reply.elapsedTime / 1000,
            requestBytes(request),
            responseBytes(reply),
          );
      } catch (error) {
        state.report(error);
      }
      next();
    });
    done();
  };
  // fastify-plugin: the hook must see every route of the app, not only those in its own scope.
  return fp(plugin, { name: "toolgate-http-metrics", fastify: "5.x" });
}
