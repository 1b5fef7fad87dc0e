/**
 * Management API for MCP clients (SPEC 4.2). Shapes:
 *   GET    /api/mcp/clients             200 {clients: ClientView[]} (each with `fleet`: every pod's view)
 *   GET    /api/mcp/client/:id          200 ClientView (with `fleet`) | 404
 *   POST   /api/mcp/client              201 ClientView | 400 | 403 (stdio) | 409 (name/id taken)
 *   PUT    /api/mcp/client/:id          200 ClientView | 400 | 404 | 409 (file client, name taken)
 *   DELETE /api/mcp/client/:id          200 {status: "success", message} | 404 | 409 (file client)
 *   POST   /api/mcp/client/:id/reconnect 200 ClientView (after the retry logic ends) | 404
 * Errors use the gateway envelope {error: {code, message, details?}}.
 */
import type { FastifyInstance, preHandlerHookHandler } from "fastify";
import { z } from "zod";

import { ClientConfig } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import { ClientPatch, type ClientService } from "./client-service.js";

export interface ClientRoutesOptions {
  readonly service: ClientService;
  readonly preHandler: preHandlerHookHandler;
  readonly bodyLimit: number;
}

const IdParams = z.object({ id: z.string().min(1) });

export function validationError(error: z.ZodError, what: string): GatewayError {
  return new GatewayError(
    "TG_ERR_VALIDATION",
    `${what} is invalid: ${error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; ")}`,
    {
      problems: error.issues.map((i) => ({
        path: i.path.join("."),
        message: i.message,
      })),
    },
  );
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, what);
  return r.data;
}

/** OAuth clients need the OAuth flow (authorize URL, callback, token store), which this build does not ship. */
function refuseOAuth(authType: string | undefined): void {
  if (authType === "oauth") {
    throw new GatewayError(
      "TG_ERR_VALIDATION",
      'auth_type "oauth" needs the OAuth flow, which this gateway build does not include yet; use auth_type "headers" with a bearer token',
      { problems: [{ path: "auth_type", message: "oauth is not available" }] },
    );
  }
}

export function clientRoutes(
  app: FastifyInstance,
  opts: ClientRoutesOptions,
  done: (err?: Error) => void,
): void {
  const { service, preHandler, bodyLimit } = opts;
  const common = { preHandler, bodyLimit };

  app.get("/api/mcp/clients", common, async () => ({
    clients: await service.listWithFleet(),
  }));

  app.get("/api/mcp/client/:id", common, (request) =>
    service.getWithFleet(parse(IdParams, request.params, "the path").id),
  );

  app.post("/api/mcp/client", common, async (request, reply) => {
    const input = parse(ClientConfig, request.body, "the client configuration");
    refuseOAuth(input.auth_type);
    return reply.code(201).send(await service.create(input));
  });

  app.put("/api/mcp/client/:id", common, async (request) => {
    const { id } = parse(IdParams, request.params, "the path");
    const patch = parse(ClientPatch, request.body ?? {}, "the client update");
    refuseOAuth(patch.auth_type);
    return service.update(id, patch);
  });

  app.delete("/api/mcp/client/:id", common, async (request) => {
    const { id } = parse(IdParams, request.params, "the path");
    await service.remove(id);
    return { status: "success", message: `MCP client "${id}" deleted` };
  });

  app.post("/api/mcp/client/:id/reconnect", common, async (request) =>
    service.reconnect(parse(IdParams, request.params, "the path").id),
  );

  done();
}
