/**
 * The request bodies at the edge. Only the fields the gateway reads are checked; every other
 * field passes through to the provider untouched (loose objects), so new provider features
 * work without a gateway change.
 *
 * Every chat request passes here, so a body is first checked by hand (`wellFormedChat`,
 * `wellFormedResponses`): a few typeof checks and no copy of the history. zod runs only when
 * that check fails, to name the problems. The hand checks accept exactly what the schemas
 * accept (a test compares them on a table of bodies), so the schemas stay the definition.
 */
import { z } from "zod";

import { GatewayError } from "../errors.js";

export const ChatBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string().min(1) })).min(1),
  stream: z.boolean().nullish(),
  stream_options: z
    .looseObject({ include_usage: z.boolean().nullish() })
    .nullish(),
  tools: z
    .array(
      z.looseObject({
        type: z.string(),
        function: z.looseObject({ name: z.string().min(1) }).optional(),
      }),
    )
    .nullish(),
});
export type ChatBody = z.infer<typeof ChatBody>;

export const ResponsesBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({}))]).optional(),
  stream: z.boolean().nullish(),
  tools: z
    .array(z.looseObject({ type: z.string(), name: z.string().optional() }))
    .nullish(),
});
export type ResponsesBody = z.infer<typeof ResponsesBody>;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isName = (v: unknown): boolean => typeof v === "string" && v.length > 0;
const nullishOr = (v: unknown, check: (v: unknown) => boolean): boolean =>
  v === undefined || v === null || check(v);
const isBool = (v: unknown): boolean => typeof v === "boolean";

function everyObj(v: unknown, check: (o: Obj) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!isObj(item) || !check(item)) return false;
  return true;
}

const chatTool = (t: Obj): boolean =>
  typeof t.type === "string" &&
  (t.function === undefined || (isObj(t.function) && isName(t.function.name)));
const chatMessage = (m: Obj): boolean => isName(m.role);

/** True when `v` passes ChatBody as it is. */
export function wellFormedChat(v: unknown): v is ChatBody {
  if (!isObj(v) || !isName(v.model)) return false;
  if (
    !everyObj(v.messages, chatMessage) ||
    (v.messages as unknown[]).length === 0
  )
    return false;
  if (!nullishOr(v.stream, isBool)) return false;
  if (
    !nullishOr(
      v.stream_options,
      (o) => isObj(o) && nullishOr(o.include_usage, isBool),
    )
  )
    return false;
  return nullishOr(v.tools, (t) => everyObj(t, chatTool));
}

const responsesTool = (t: Obj): boolean =>
  typeof t.type === "string" &&
  (t.name === undefined || typeof t.name === "string");

/** True when `v` passes ResponsesBody as it is. */
export function wellFormedResponses(v: unknown): v is ResponsesBody {
  if (!isObj(v) || !isName(v.model)) return false;
  if (
    v.input !== undefined &&
    typeof v.input !== "string" &&
    !everyObj(v.input, () => true)
  )
    return false;
  if (!nullishOr(v.stream, isBool)) return false;
  return nullishOr(v.tools, (t) => everyObj(t, responsesTool));
}

/**
 * Checks a body or throws TG_ERR_VALIDATION listing every problem with its path. A body the
 * hand check accepts is returned as it came (callers copy before they change anything).
 */
export function parseBody<T>(
  schema: z.ZodType<T>,
  body: unknown,
  route: string,
  wellFormed?: (v: unknown) => v is T,
): T {
  if (wellFormed?.(body)) return body;
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const problems = r.error.issues.map(
    (i) => `${i.path.length > 0 ? i.path.join(".") : "body"}: ${i.message}`,
  );
  throw new GatewayError(
    "TG_ERR_VALIDATION",
    `invalid ${route} request: ${problems.join("; ")}`,
    { problems },
  );
}
