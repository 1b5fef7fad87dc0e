/**
 * Pod identity: the name under which this process writes its per-pod keys (health) and
 * signs its lock owner tokens. `TOOLGATE_POD_ID` wins (set it from the Downward API's
 * `metadata.name` if HOSTNAME is not the pod name); otherwise `HOSTNAME`, which Kubernetes
 * sets to the pod name; otherwise a random `pod-<hex>` (a laptop, where it only has to be
 * unique while the process runs). Characters that would break the `:`-separated key layout
 * become `_`.
 */
import { randomBytes } from "node:crypto";

export function resolvePodId(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const raw =
    env.TOOLGATE_POD_ID?.trim() ||
    env.HOSTNAME?.trim() ||
    `pod-${randomBytes(4).toString("hex")}`;
  return raw.replace(/[^A-Za-z0-9_.-]/g, "_");
}
