/** Shared set-up for tests that run the operator against the API server double. */
import { GatewayConfig } from "@toolgate/gateway";

import { silentLogger } from "../src/logger.js";
import { OperatorMetrics } from "../src/metrics.js";
import { Operator, type OperatorOptions } from "../src/operator.js";
import { CONFIG_KEY } from "../src/render/children.js";
import type { StatusSource } from "../src/status/status-source.js";
import type { ApiServerDouble } from "./api-server-double.js";

export const NS = "tools";
export const CLIENTS = `/apis/toolgate.dev/v1alpha1/namespaces/${NS}/mcpclients`;
export const KEYS = `/apis/toolgate.dev/v1alpha1/namespaces/${NS}/virtualkeys`;
export const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
export const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
export const LEASES = `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`;
export const TARGET = { namespace: NS, configMap: "gw", secret: "gw-secrets" };

/** Polls `check` until it stops throwing; rethrows its last error after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export function startOperator(
  api: ApiServerDouble,
  statusSource: StatusSource,
  user = "operator",
  extra: Partial<OperatorOptions> = {},
): Operator {
  const op = new Operator(api.kubeConfig(user), {
    namespaces: [NS],
    target: TARGET,
    statusSource,
    statusIntervalMs: 100,
    identity: user,
    leaseName: "toolgate-operator",
    leaseDurationSeconds: 2,
    retryPeriodMs: 50,
    logger: silentLogger,
    metrics: new OperatorMetrics(),
    ...extra,
  });
  op.start();
  return op;
}

/** The rendered gateway config, parsed by the gateway's own schema (throws when invalid or absent). */
export function renderedConfig(api: ApiServerDouble): GatewayConfig {
  const cm = api.get(`${CONFIGMAPS}/${TARGET.configMap}`);
  const text = (cm?.data as Record<string, string> | undefined)?.[CONFIG_KEY];
  if (text === undefined) throw new Error("no rendered config yet");
  return GatewayConfig.parse(JSON.parse(text));
}

export function renderedSecret(api: ApiServerDouble): Record<string, string> {
  const s = api.get(`${SECRETS}/${TARGET.secret}`);
  if (!s) throw new Error("no rendered secret yet");
  return Object.fromEntries(
    Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [
      k,
      Buffer.from(v, "base64").toString("utf8"),
    ]),
  );
}

export function secret(
  name: string,
  data: Record<string, string>,
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name },
    data: Object.fromEntries(
      Object.entries(data).map(([k, v]) => [
        k,
        Buffer.from(v).toString("base64"),
      ]),
    ),
  };
}

export function mcpClient(
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: "toolgate.dev/v1alpha1",
    kind: "MCPClient",
    metadata: { name },
    spec,
  };
}

export function virtualKey(
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: "toolgate.dev/v1alpha1",
    kind: "VirtualKey",
    metadata: { name },
    spec,
  };
}

interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export function condition(
  obj: Record<string, unknown> | undefined,
  type: string,
): Cond | undefined {
  const conds = (obj?.status as { conditions?: Cond[] } | undefined)
    ?.conditions;
  return conds?.find((c) => c.type === type);
}
