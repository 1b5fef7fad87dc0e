/**
 * Conditions the Kubernetes way (metav1.Condition): `lastTransitionTime` moves only when
 * `status` changes; reason, message and observedGeneration may change in place.
 */
import type { Condition } from "../crds/resources.js";

export type ConditionInput = Omit<Condition, "lastTransitionTime">;

export function setConditions(
  previous: readonly Condition[] | undefined,
  next: readonly ConditionInput[],
  now: Date,
): Condition[] {
  return next.map((c) => {
    const prev = previous?.find((p) => p.type === c.type);
    const lastTransitionTime =
      prev && prev.status === c.status
        ? prev.lastTransitionTime
        : now.toISOString();
    return { ...c, lastTransitionTime };
  });
}

/** Deep equality of JSON-like values, for "would this status write change anything". */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (
    typeof a !== "object" ||
    typeof b !== "object" ||
    a === null ||
    b === null
  )
    return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter(
    (k) => (a as Record<string, unknown>)[k] !== undefined,
  );
  const kb = Object.keys(b).filter(
    (k) => (b as Record<string, unknown>)[k] !== undefined,
  );
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    jsonEqual(
      (a as Record<string, unknown>)[k],
      (b as Record<string, unknown>)[k],
    ),
  );
}
