/**
 * zod -> JSON Schema -> structural OpenAPI v3, the dialect CRDs accept. Kubernetes wants a
 * `type` on every node, no `$ref`/`$schema`/`propertyNames`, and forbids
 * `additionalProperties` next to `properties` (it prunes unknown fields instead). Safe-integer
 * bounds that zod adds to every `z.int()` are noise in a CRD and are dropped.
 */
import { z } from "zod";

export type OpenApiSchema = { [key: string]: unknown };

const DROPPED = new Set(["$schema", "$id", "propertyNames", "$defs", "definitions"]);
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function rejectNonStructural(node: Record<string, unknown>): void {
  if ("$ref" in node) throw new Error("schemas with $ref cannot become CRDs; inline the definition");
  for (const k of ["anyOf", "oneOf", "allOf", "not"]) {
    if (k in node) throw new Error(`"${k}" is not structural; express the rule with x-kubernetes-validations`);
  }
}

const isSafeIntBound = (key: string, value: unknown): boolean => (key === "minimum" && value === -MAX_SAFE) || (key === "maximum" && value === MAX_SAFE);

/** One key of a node: its structural form, or undefined to drop it. */
function convertKey(key: string, value: unknown): unknown {
  if (DROPPED.has(key) || isSafeIntBound(key, value)) return undefined;
  if (key === "properties" && isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toStructural(v)]));
  if (key === "items") return toStructural(value);
  // `additionalProperties: false` is dropped: Kubernetes prunes unknown fields, and rejects it beside properties.
  if (key === "additionalProperties") return isRecord(value) ? toStructural(value) : undefined;
  return value;
}

/** Recursively rewrites one JSON Schema node into its structural form. */
export function toStructural(node: unknown): OpenApiSchema {
  if (!isRecord(node)) throw new TypeError("schema node must be an object");
  rejectNonStructural(node);
  const out: OpenApiSchema = {};
  for (const [key, value] of Object.entries(node)) {
    const converted = convertKey(key, value);
    if (converted !== undefined) out[key] = converted;
  }
  if (typeof out.type !== "string") throw new Error(`every node needs a single "type" (got ${JSON.stringify(node).slice(0, 80)})`);
  return out;
}

/** The structural OpenAPI v3 schema of a zod schema, as the API server would accept it. */
export function openApiOf(schema: z.ZodType): OpenApiSchema {
  return toStructural(z.toJSONSchema(schema, { io: "input", target: "draft-7", unrepresentable: "throw" }));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
