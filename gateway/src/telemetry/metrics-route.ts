/** GET /metrics in the Prometheus text format (SPEC 4.6), behind the admin auth the app passes in. */
import type {
  FastifyPluginCallback,
  preHandlerAsyncHookHandler,
  preHandlerHookHandler,
} from "fastify";
import fp from "fastify-plugin";
import type { Registry } from "prom-client";

export interface MetricsRouteOptions {
  /** Admin auth (http/admin-auth.ts): Basic auth when server.auth is set, loopback-only otherwise. */
  readonly preHandler?: preHandlerHookHandler | preHandlerAsyncHookHandler;
}

export function metricsRoute(
  registry: Registry,
  options: MetricsRouteOptions = {},
): FastifyPluginCallback {
  const plugin: FastifyPluginCallback = (fastify, _opts, done) => {
    fastify.route({
      method: "GET",
      url: "/metrics",
      ...(options.preHandler === undefined
        ? {}
        : { preHandler: options.preHandler }),
      schema: {
        response: {
          200: {
            type: "string",
            description: "Prometheus text exposition format 0.0.4",
          },
        },
      },
      handler: async (_request, reply) => {
        const body = await registry.metrics();
        return reply.type(registry.contentType).send(body);
      },
    });
    done();
  };
  return fp(plugin, { name: "toolgate-metrics-route", fastify: "5.x" });
}
