/**
 * Token usage summed over the iterations of an agent run. Both APIs report flat counters with
 * nested detail objects (`prompt_tokens_details`, `output_tokens_details`); every number is
 * added, at any depth, so provider-specific counters add up too.
 */
import type { Json } from "./types.js";

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function addUsage(
  total: Json | undefined,
  next: Json | undefined,
): Json | undefined {
  if (!next) return total;
  if (!total) return next;
  const out: Json = { ...total };
  for (const [k, v] of Object.entries(next)) {
    const prev = out[k];
    if (typeof v === "number")
      out[k] = (typeof prev === "number" ? prev : 0) + v;
    else if (isObject(v))
      out[k] = addUsage(isObject(prev) ? prev : undefined, v);
    else if (prev === undefined) out[k] = v;
  }
  return out;
}
