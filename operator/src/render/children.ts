/**
 * The ConfigMap and Secret of one gateway release, built from a `Rendered` state, and the
 * comparison that decides whether an existing object needs a write. Objects created by the
 * chart keep their own labels and annotations: only our keys are set, so a converged object
 * compares equal and is left alone.
 */
import type { V1ConfigMap, V1Secret } from "@kubernetes/client-node";

import type { Rendered } from "./desired.js";

export const CONFIG_KEY = "config.json";
export const CHECKSUM_ANNOTATION = "toolgate.dev/config-checksum";
export const MANAGED_BY = {
  "app.kubernetes.io/managed-by": "toolgate-operator",
};

export interface Target {
  namespace: string;
  configMap: string;
  secret: string;
}

export function desiredConfigMap(
  r: Rendered,
  t: Target,
  existing?: V1ConfigMap,
): V1ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      ...existing?.metadata,
      name: t.configMap,
      namespace: t.namespace,
      labels: { ...existing?.metadata?.labels, ...MANAGED_BY },
      annotations: {
        ...existing?.metadata?.annotations,
        [CHECKSUM_ANNOTATION]: r.checksum,
      },
    },
    data: { ...existing?.data, [CONFIG_KEY]: r.configJson },
  };
}

export function desiredSecret(
  r: Rendered,
  t: Target,
  existing?: V1Secret,
): V1Secret {
  // The Secret holds exactly the rendered values: a stale key would leak a removed credential.
  const data = Object.fromEntries(
    Object.entries(r.secretData).map(([k, v]) => [
      k,
      Buffer.from(v, "utf8").toString("base64"),
    ]),
  );
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: existing?.type ?? "Opaque",
    metadata: {
      ...existing?.metadata,
      name: t.secret,
      namespace: t.namespace,
      labels: { ...existing?.metadata?.labels, ...MANAGED_BY },
      annotations: {
        ...existing?.metadata?.annotations,
        [CHECKSUM_ANNOTATION]: r.checksum,
      },
    },
    data,
  };
}

function sameRecord(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const ea = Object.entries(a ?? {});
  if (ea.length !== Object.keys(b ?? {}).length) return false;
  return ea.every(([k, v]) => b?.[k] === v);
}

/** True when `existing` already carries everything `desired` sets (so no write is needed). */
export function converged(
  existing: V1ConfigMap | V1Secret,
  desired: V1ConfigMap | V1Secret,
): boolean {
  return (
    sameRecord(existing.data, desired.data) &&
    sameRecord(existing.metadata?.labels, desired.metadata?.labels) &&
    sameRecord(existing.metadata?.annotations, desired.metadata?.annotations)
  );
}

/** Decodes a Secret's base64 `data` (and plain `stringData`) into values. */
export function decodeSecret(s: V1Secret): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.data ?? {}))
    out[k] = Buffer.from(v, "base64").toString("utf8");
  for (const [k, v] of Object.entries(s.stringData ?? {})) out[k] = v;
  return out;
}
