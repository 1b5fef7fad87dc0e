/**
 * Choosing and building the store: Redis when a URL is configured (`state.redis_url`, else
 * the `TOOLGATE_REDIS_URL` environment variable; either may be an `env.<VAR>` reference),
 * memory otherwise. Building never waits for Redis: a pod starts while Redis is away, and
 * `ping()` (which `/ready` uses) reports it until it is back.
 */
import type { Logger } from "pino";

import type { SecretSource } from "../config/env.js";
import { processSecretSource, resolveSecret } from "../config/env.js";
import { EnvelopeStore } from "./envelope-store.js";
import type { MemoryHub } from "./memory-backend.js";
import { MemoryBackend } from "./memory-backend.js";
import { resolvePodId } from "./pod-id.js";
import { RedisBackend } from "./redis-backend.js";
import { redisTarget } from "./redis-target.js";
import type { StateStore } from "./types.js";

export const DEFAULT_NAMESPACE = "toolgate";

export interface StateStoreOptions {
  /** A Redis URL (see redis-target.ts for the forms) or an `env.<VAR>` reference to one. Absent: memory. */
  readonly redisUrl?: string | undefined;
  readonly logger: Logger;
  /** Key prefix, `toolgate` by default; tests use a unique one per run. */
  readonly namespace?: string | undefined;
  /** Default: `resolvePodId()`. */
  readonly podId?: string | undefined;
  /** Where `env.` references resolve; default: the process environment and TOOLGATE_SECRETS_DIR. */
  readonly secrets?: SecretSource | undefined;
  /** Memory only: share data and pub/sub with other memory stores built on the same hub. */
  readonly memoryHub?: MemoryHub | undefined;
}

/** The configured Redis URL: `state.redis_url` first, then TOOLGATE_REDIS_URL; undefined selects memory. */
export function configuredRedisUrl(
  stateSection: { readonly redis_url?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  return stateSection.redis_url ?? (env.TOOLGATE_REDIS_URL || undefined);
}

export function createStateStore(options: StateStoreOptions): StateStore {
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const podId = options.podId ?? resolvePodId();
  const logger = options.logger.child({ component: "state" });
  if (options.redisUrl === undefined) {
    return new EnvelopeStore({
      backend: new MemoryBackend(options.memoryHub),
      namespace,
      logger,
      podId,
    });
  }
  const target = redisTarget(
    resolveSecret(options.redisUrl, options.secrets ?? processSecretSource()),
  );
  logger.info(
    { redis: target.display, namespace, podId },
    "state store: Redis",
  );
  return new EnvelopeStore({
    backend: new RedisBackend(target, logger, `toolgate:${podId}`),
    namespace,
    logger,
    podId,
  });
}
