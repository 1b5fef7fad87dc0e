/**
 * PATCH /config (SPEC 4.6): runtime changes to the `client` section. Accepted keys are the
 * ones that can change without a restart; the body is validated whole before anything
 * changes. The answer is the effective `client` section. A later reload of the config file
 * replaces these runtime values with the file's (the file stays the source of truth).
 */
import type { FastifyInstance, preHandlerHookHandler } from "fastify";
import { z } from "zod";

import { ClientSection } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import { validationError } from "./client-routes.js";

const section = ClientSection.shape;

/** Each key of the client section, without its default: a key left out of the patch stays as it is. */
// initial_pool_size sizes pools allocated at startup, so it is not accepted here (see patchError).
export const ConfigPatch = z.strictObject({
  client: z.strictObject({
    enforce_governance_header: section.enforce_governance_header
      .unwrap()
      .optional(),
    prometheus_labels: section.prometheus_labels.unwrap().optional(),
    drop_excess_requests: section.drop_excess_requests.unwrap().optional(),
    allowed_origins: section.allowed_origins.unwrap().optional(),
  }),
});
export type ConfigPatch = z.infer<typeof ConfigPatch>;
export type ClientSectionValue = z.infer<typeof ClientSection>;

const STARTUP_ONLY = ["initial_pool_size"] as const;

function startupOnlyKey(body: unknown): string | undefined {
  const client =
    typeof body === "object" && body !== null
      ? (body as { client?: unknown }).client
      : undefined;
  if (typeof client !== "object" || client === null) return undefined;
  return STARTUP_ONLY.find((k) => k in client);
}

export interface ConfigRoutesOptions {
  readonly preHandler: preHandlerHookHandler;
  readonly bodyLimit: number;
  /** Applies a validated patch and returns the effective client section. */
  readonly patchClient: (patch: ConfigPatch["client"]) => ClientSectionValue;
}

export function configRoutes(
  app: FastifyInstance,
  opts: ConfigRoutesOptions,
  done: (err?: Error) => void,
): void {
  app.patch(
    "/config",
    { preHandler: opts.preHandler, bodyLimit: opts.bodyLimit },
    (request) => {
      const startupOnly = startupOnlyKey(request.body);
      if (startupOnly) {
        throw new GatewayError(
          "TG_ERR_VALIDATION",
          `client.${startupOnly} takes effect at startup; set it in the config file and restart`,
          {
            problems: [
              {
                path: `client.${startupOnly}`,
                message: "cannot change at runtime",
              },
            ],
          },
        );
      }
      const parsed = ConfigPatch.safeParse(request.body ?? {});
      if (!parsed.success)
        throw validationError(parsed.error, "the configuration patch");
      return { client: opts.patchClient(parsed.data.client) };
    },
  );
  done();
}
