/**
 * The request bodies at the edge. Only the fields the gateway reads are checked; every other
 * field passes through to the provider untouched (loose objects), so new provider features
 * work without a gateway change.
 */
import { z } from "zod";

import { GatewayError } from "../errors.js";

export const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string().min(1) })).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  tools: z.array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string().min(1) }).optional() })).nullish(),
});
export type ChatBody = z.infer<typeof ChatBody>;

export const ResponsesBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional(),
  stream: z.boolean().nullish(),
  tools: z.array(z.looseObject({ type: z.string(), name: z.string().optional() })).nullish(),
});
export type ResponsesBody = z.infer<typeof ResponsesBody>;

/** Parses a body or throws TG_ERR_VALIDATION listing every problem with its path. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown, route: string): T {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "body"}: ${i.message}`);
  throw new GatewayError("TG_ERR_VALIDATION", `invalid ${route} request: ${problems.join("; ")}`, { problems });
}
