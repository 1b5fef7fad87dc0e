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

/** Recursively rewrites one JSON Schema node into its structural form. */
export function toStructural(node: unknown): OpenApiSchema {
  if (!isRecord(node)) throw new TypeError("schema node must be an object");
  if ("$ref" in node) throw new Error("schemas with $ref cannot become CRDs; inline the definition");
  for (const k of ["anyOf", "oneOf", "allOf", "not"]) {
    if (k in node) throw new Error(`"${k}" is not structural; express the rule with x-kubernetes-validations`);
  }
  const out: OpenApiSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue;
    if (key === "properties" && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toStructural(v)]));
    } else if (key === "items") {
      out.items = toStructural(value);
    } else if (key === "additionalProperties") {
      if (isRecord(value)) out.additionalProperties = toStructural(value);
      // `false` is dropped: Kubernetes prunes unknown fields, and rejects it beside properties.
    } else if ((key === "minimum" && value === -MAX_SAFE) || (key === "maximum" && value === MAX_SAFE)) {
      continue;
    } else {
      out[key] = value;
    }
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
