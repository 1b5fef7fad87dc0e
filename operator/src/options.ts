/** Command-line flags of the `operator` bin, parsed once and checked with zod. */
import { parseArgs } from "node:util";

import { DURATION_PATTERN, durationMs } from "@toolgate/gateway";
import { z } from "zod";

const K8S_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const name = (what: string) =>
  z.string().regex(K8S_NAME, {
    message: `${what} must be a Kubernetes object name (lowercase letters, digits, "-", ".")`,
  });

export const OperatorFlags = z.strictObject({
  namespaces: z.array(name("--namespace")).min(1),
  gatewayNamespace: name("--gateway-namespace"),
  gatewayConfigMap: name("--gateway-config-map"),
  gatewaySecret: name("--gateway-secret"),
  redisUrl: z
    .string()
    .regex(/^rediss?:\/\//, {
      message: "--redis-url must start with redis:// or rediss://",
    })
    .optional(),
  redisPrefix: z.string().min(1),
  baseConfig: z.string().min(1).optional(),
  healthHost: z.string().min(1),
  healthPort: z.int().min(0).max(65535),
  leaseName: name("--lease-name"),
  identity: z.string().min(1),
  statusIntervalMs: z.int().min(100),
  logLevel: z.enum([
    "fatal",
    "error",
    "warn",
    "info",
    "debug",
    "trace",
    "silent",
  ]),
});
export type OperatorFlags = z.infer<typeof OperatorFlags>;

export const USAGE = `Usage: operator [flags]
  --namespace NS            namespace to watch (repeat or comma-separate; default: $POD_NAMESPACE or "default")
  --gateway-namespace NS    namespace of the gateway ConfigMap/Secret and the Lease (default: first --namespace)
  --gateway-config-map NAME ConfigMap the gateway config is rendered into (default "toolgate-gateway")
  --gateway-secret NAME     Secret the secret values are rendered into (default "toolgate-gateway")
  --redis-url URL           state store the gateways report status to (redis:// or rediss://)
  --redis-prefix P          key prefix in Redis (default "toolgate:")
  --base-config FILE        JSON or YAML gateway config the resources are added to (server, state, providers...)
  --health-host HOST        bind address of /healthz, /readyz, /metrics (default 0.0.0.0)
  --health-port PORT        port of /healthz, /readyz, /metrics (default 8081)
  --lease-name NAME         leader-election Lease (default "toolgate-operator-<gateway-config-map>")
  --identity ID             leader-election identity (default: $POD_NAME or the host name)
  --status-interval DUR     how often client status is refreshed from Redis (default "10s")
  --log-level LEVEL         fatal|error|warn|info|debug|trace|silent (default "info")
`;

export interface FlagEnv {
  POD_NAMESPACE?: string | undefined;
  POD_NAME?: string | undefined;
  HOSTNAME?: string | undefined;
}

/** Parses argv (without node and script). Throws with a message naming the flag on bad input. */
export function parseFlags(argv: string[], env: FlagEnv): OperatorFlags {
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    options: {
      namespace: {
        type: "string",
        multiple: true,
        default: [env.POD_NAMESPACE ?? "default"],
      },
      "gateway-namespace": { type: "string" },
      "gateway-config-map": { type: "string", default: "toolgate-gateway" },
      "gateway-secret": { type: "string", default: "toolgate-gateway" },
      "redis-url": { type: "string" },
      "redis-prefix": { type: "string", default: "toolgate:" },
      "base-config": { type: "string" },
      "health-host": { type: "string", default: "0.0.0.0" },
      "health-port": { type: "string", default: "8081" },
      "lease-name": { type: "string" },
      identity: {
        type: "string",
        default: env.POD_NAME ?? env.HOSTNAME ?? "toolgate-operator",
      },
      "status-interval": { type: "string", default: "10s" },
      "log-level": { type: "string", default: "info" },
    },
  });
  const namespaces = v.namespace
    .flatMap((n) => n.split(","))
    .map((n) => n.trim())
    .filter(Boolean);
  const interval = v["status-interval"];
  if (!DURATION_PATTERN.test(interval))
    throw new Error(
      `--status-interval "${interval}" is not a duration; use e.g. "10s"`,
    );
  const parsed = OperatorFlags.safeParse({
    namespaces,
    gatewayNamespace: v["gateway-namespace"] ?? namespaces[0],
    gatewayConfigMap: v["gateway-config-map"],
    gatewaySecret: v["gateway-secret"],
    redisUrl: v["redis-url"],
    redisPrefix: v["redis-prefix"],
    baseConfig: v["base-config"],
    healthHost: v["health-host"],
    healthPort: Number(v["health-port"]),
    leaseName:
      v["lease-name"] ?? `toolgate-operator-${v["gateway-config-map"]}`,
    identity: v.identity,
    statusIntervalMs: durationMs(interval),
    logLevel: v["log-level"],
  });
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .map((i) => `${i.path.join(".")}: ${i.message}`)
        .join("; "),
    );
  return parsed.data;
}
