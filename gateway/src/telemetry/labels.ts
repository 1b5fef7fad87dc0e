/**
 * Label names and values shared by the metric families. Every series of a family carries the
 * same label names; a label that does not apply to one observation is exported as "" (which
 * Prometheus treats as absent), never left out, so a family never mixes label sets.
 */
import type { IncomingHttpHeaders } from "node:http";

import type { ProviderCallLabels } from "./types.js";

/** SPEC 11.2 base labels, in export order. */
export const BASE_LABELS = [
  "provider",
  "model",
  "method",
  "virtual_key_id",
  "virtual_key_name",
  "routing_engines_used",
  "routing_rule_id",
  "routing_rule_name",
  "selected_key_id",
  "selected_key_name",
  "number_of_retries",
  "fallback_index",
] as const;

export type BaseLabel = (typeof BASE_LABELS)[number];
export type LabelValues = Record<string, string>;

export const HTTP_LABELS = ["path", "method", "status"] as const;

/**
 * Names a custom label may not take: they would collide with a built-in label of some family
 * (prom-client rejects duplicates) or are reserved by Prometheus (`le`, `quantile`, `__*`).
 */
const RESERVED = new Set<string>([
  ...BASE_LABELS,
  ...HTTP_LABELS,
  "reason",
  "is_success",
  "cache_type",
  "le",
  "quantile",
]);

/**
 * Values longer than this are cut: the header is caller-controlled, and one label value should
 * not be able to hold kilobytes in every series of every family.
 */
export const MAX_CUSTOM_VALUE_LENGTH = 128;

export interface CustomLabelSet {
  /** Usable label names, de-duplicated, in configured order. */
  readonly names: readonly string[];
  /** `x-bf-prom-<name>` lower-cased, index-aligned with `names` (Node lower-cases header names). */
  readonly headers: readonly string[];
  /** Configured names that were dropped, with the reason (logged by the caller). */
  readonly rejected: readonly {
    readonly name: string;
    readonly reason: string;
  }[];
}

export function customLabelSet(configured: readonly string[]): CustomLabelSet {
  const names: string[] = [];
  const rejected: { name: string; reason: string }[] = [];
  for (const name of configured) {
    if (RESERVED.has(name))
      rejected.push({ name, reason: "collides with a built-in label" });
    else if (name.startsWith("__"))
      rejected.push({
        name,
        reason: "names starting with __ are reserved by Prometheus",
      });
    else if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name))
      rejected.push({ name, reason: "not a Prometheus label name" });
    else if (!names.includes(name)) names.push(name);
  }
  return {
    names,
    headers: names.map((n) => `x-bf-prom-${n.toLowerCase()}`),
    rejected,
  };
}

/** One header's value as a label value: first of a repeated header, cut to MAX_CUSTOM_VALUE_LENGTH. */
export function headerValue(raw: string | string[] | undefined): string {
  // A repeated header arrives as an array (or comma-joined by Node); the first value wins.
  const value = Array.isArray(raw) ? (raw[0] ?? "") : (raw ?? "");
  return value.length > MAX_CUSTOM_VALUE_LENGTH
    ? value.slice(0, MAX_CUSTOM_VALUE_LENGTH)
    : value;
}

/** Writes the custom label values from `x-bf-prom-<label>` headers into `target`; a missing header gives "". */
export function assignHeaderValues(
  target: LabelValues,
  set: CustomLabelSet,
  headers: IncomingHttpHeaders,
): LabelValues {
  for (let i = 0; i < set.names.length; i++) {
    target[set.names[i] as string] = headerValue(
      headers[set.headers[i] as string],
    );
  }
  return target;
}

/** Copies the current custom label values into `target`; names the caller did not supply get "". */
export function assignCustom(
  target: LabelValues,
  names: readonly string[],
  custom: Readonly<Record<string, string>>,
): LabelValues {
  for (const name of names) {
    const v = custom[name];
    target[name] =
      typeof v === "string"
        ? v.length > MAX_CUSTOM_VALUE_LENGTH
          ? v.slice(0, MAX_CUSTOM_VALUE_LENGTH)
          : v
        : "";
  }
  return target;
}

const str = (v: string | undefined): string => v ?? "";
/** A call that reports no retry count or fallback index was the first attempt without retries. */
const count = (v: number | undefined): string =>
  v === undefined || !Number.isFinite(v) ? "0" : String(Math.trunc(v));

/** SPEC 11.2 base label values; absent strings are "", absent counts "0". */
export function baseLabelValues(l: ProviderCallLabels): LabelValues {
  return {
    provider: l.provider,
    model: l.model,
    method: l.method,
    virtual_key_id: str(l.virtual_key_id),
    virtual_key_name: str(l.virtual_key_name),
    routing_engines_used: str(l.routing_engines_used),
    routing_rule_id: str(l.routing_rule_id),
    routing_rule_name: str(l.routing_rule_name),
    selected_key_id: str(l.selected_key_id),
    selected_key_name: str(l.selected_key_name),
    number_of_retries: count(l.number_of_retries),
    fallback_index: count(l.fallback_index),
  };
}
