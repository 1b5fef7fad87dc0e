/**
 * Turning zod issues into problems a person can act on: each names the path
 * (`mcp.client_configs[2].name`), quotes the offending value (secrets redacted) and says what
 * is allowed. Unknown keys get a "did you mean" from the keys the schema knows at that spot.
 */
import type { z } from "zod";

import { type ErrorCode, GatewayError } from "../errors.js";
import {
  type ConfigPath,
  formatPath,
  redactAt,
  type SecretScope,
} from "./redact.js";

export interface ConfigProblem {
  /** `mcp.client_configs[2].name`; `(root)` for the top level. */
  readonly path: string;
  /** The offending value as JSON, secrets redacted; absent when the value is missing or is a key. */
  readonly value?: string;
  readonly message: string;
}

export function formatProblem(p: ConfigProblem): string {
  return p.value === undefined
    ? `${p.path}: ${p.message}`
    : `${p.path} ${p.value}: ${p.message}`;
}

/** A configuration that cannot be used, with every problem found in it. */
export class ConfigError extends GatewayError {
  readonly problems: readonly ConfigProblem[];
  readonly source: string;

  constructor(
    source: string,
    problems: readonly ConfigProblem[],
    code: ErrorCode = "TG_ERR_CONFIG_INVALID",
    headline?: string,
  ) {
    const head =
      headline ??
      `${source}: the configuration is invalid (${problems.length} ${problems.length === 1 ? "problem" : "problems"})`;
    super(
      code,
      [head, ...problems.map((p) => `  - ${formatProblem(p)}`)].join("\n"),
      { problems },
    );
    this.name = "ConfigError";
    this.problems = problems;
    this.source = source;
  }
}

export function isConfigError(e: unknown): e is ConfigError {
  return e instanceof ConfigError;
}

function valueAt(root: unknown, path: ConfigPath): unknown {
  let cur = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

const MAX_SHOWN = 80;

/** The value as it appears in a message: JSON, secrets redacted, long values shortened. */
export function showValue(
  root: unknown,
  path: ConfigPath,
  scope: SecretScope,
): string | undefined {
  const v = valueAt(root, path);
  if (v === undefined) return undefined;
  // JSON.stringify gives undefined only for functions and symbols, which parsed JSON/YAML never holds.
  const json = JSON.stringify(redactAt(v, path, scope)) ?? "?";
  return json.length > MAX_SHOWN ? `${json.slice(0, MAX_SHOWN - 3)}...` : json;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (cur[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + cost,
      );
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

/** The closest known key, when close enough to be a typo; `toolsToExecute` finds `tools_to_execute`. */
export function didYouMean(
  key: string,
  known: readonly string[],
): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll(/[_-]/g, "");
  let best: { key: string; d: number } | undefined;
  for (const k of known) {
    // Same words in another case or separator, or a shortened key (`health_monitor`), count as exact.
    const close =
      norm(k) === norm(key) ||
      (key.length >= 4 && norm(k).startsWith(norm(key)));
    const d = close ? 0 : levenshtein(key.toLowerCase(), k.toLowerCase());
    if (!best || d < best.d) best = { key: k, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(key.length / 3))
    ? best.key
    : undefined;
}

/** zod v4 keeps each schema's definition in `_zod.def`; only the wrapper kinds used by the config schema matter. */
interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
}

const defOf = (s: z.ZodType): SchemaDef =>
  (s as unknown as { _zod: { def: SchemaDef } })._zod.def;

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let def = defOf(cur); ; def = defOf(cur)) {
    const next = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
    if (!next) return cur;
    cur = next;
  }
}

/** The keys the schema allows for the object at `path`, or [] when the path leads nowhere known. */
export function knownKeysAt(schema: z.ZodType, path: ConfigPath): string[] {
  let cur: z.ZodType | undefined = unwrap(schema);
  for (const seg of path) {
    const def: SchemaDef = defOf(cur);
    if (def.type === "object") cur = def.shape?.[String(seg)];
    else if (def.type === "array") cur = def.element;
    else if (def.type === "record") cur = def.valueType;
    else cur = undefined;
    if (!cur) return [];
    cur = unwrap(cur);
  }
  const def = defOf(cur);
  return def.type === "object" && def.shape ? Object.keys(def.shape) : [];
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  if (typeof v === "number" && !Number.isInteger(v)) return "a fraction";
  return `a ${typeof v}`;
}

const EXPECTED: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  record: "an object",
};

function sizeMessage(
  issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig,
  small: boolean,
): string {
  const bound = small
    ? (issue as z.core.$ZodIssueTooSmall).minimum
    : (issue as z.core.$ZodIssueTooBig).maximum;
  const word = small ? "at least" : "at most";
  if (issue.origin === "string")
    return small && Number(bound) === 1
      ? "must not be empty"
      : `must be ${word} ${String(bound)} characters long`;
  if (issue.origin === "array")
    return `must have ${word} ${String(bound)} ${Number(bound) === 1 ? "entry" : "entries"}`;
  return `must be ${word} ${String(bound)}`;
}

function messageFor(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return input === undefined
        ? "is required"
        : `must be ${EXPECTED[issue.expected] ?? issue.expected}, not ${typeName(input)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return sizeMessage(issue, true);
    case "too_big":
      return sizeMessage(issue, false);
    case "invalid_key":
      return issue.issues.map((i) => i.message).join("; ");
    default:
      return issue.message;
  }
}

/** Every zod issue as a problem; `root` is the raw input (for quoting values). */
export function problemsFromZod(
  error: z.ZodError,
  root: unknown,
  schema: z.ZodType,
  scope: SecretScope = "config",
): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of error.issues) {
    const path = issue.path.filter(
      (p): p is string | number => typeof p !== "symbol",
    );
    if (issue.code === "unrecognized_keys") {
      const known = knownKeysAt(schema, path);
      for (const key of issue.keys) {
        const hint = didYouMean(key, known);
        const allowed =
          known.length > 0
            ? `allowed keys: ${known.join(", ")}`
            : "no keys are allowed here";
        out.push({
          path: formatPath([...path, key]),
          message: hint
            ? `unknown key; did you mean "${hint}"?`
            : `unknown key; ${allowed}`,
        });
      }
      continue;
    }
    // The key itself is the offending value of a record key; never quote the value under it.
    const value =
      issue.code === "invalid_key" ? undefined : showValue(root, path, scope);
    const problem = {
      path: formatPath(path),
      message: messageFor(issue, valueAt(root, path)),
    };
    out.push(value === undefined ? problem : { ...problem, value });
  }
  return out;
}
