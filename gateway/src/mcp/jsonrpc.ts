/**
 * Reading one JSON-RPC 2.0 message from an /mcp POST body. The envelope is checked with zod;
 * `params` stays as given (methods check their own). Batches are refused: MCP removed
 * JSON-RPC batching in protocol 2025-06-18, and a gateway that fans a batch out to several
 * upstreams would have no good answer for partial failure.
 */
import { z } from "zod";

import { exceedsDepth, MAX_JSON_DEPTH } from "./json-depth.js";
import { RpcCode, type RpcId } from "./wire-errors.js";

const Id = z.union([z.string(), z.int()]);

const Message = z.object({
  jsonrpc: z.literal("2.0", { message: 'jsonrpc must be "2.0"' }),
  id: Id.optional(),
  method: z.string().min(1).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

export type Incoming =
  | { readonly kind: "request"; readonly id: string | number; readonly method: string; readonly params: Record<string, unknown> }
  | { readonly kind: "notification"; readonly method: string; readonly params: Record<string, unknown> }
  /** A client's response to a server request; the gateway sends none, so these are acknowledged and dropped. */
  | { readonly kind: "response" }
  | { readonly kind: "invalid"; readonly id: RpcId; readonly code: number; readonly message: string };

const EMPTY: Record<string, unknown> = Object.freeze({});

function idOf(value: unknown): RpcId {
  if (typeof value !== "object" || value === null || !("id" in value)) return null;
  const id = (value).id;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

function describe(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
}

export function readMessage(text: string, maxDepth: number = MAX_JSON_DEPTH): Incoming {
  if (exceedsDepth(text, maxDepth)) {
    return { kind: "invalid", id: null, code: RpcCode.InvalidRequest, message: `JSON nesting deeper than ${maxDepth} levels` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: "invalid", id: null, code: RpcCode.ParseError, message: `Parse error: ${(e as Error).message}` };
  }
  return classify(value);
}

/** A message with no method is a client's response to the server, or invalid. */
function withoutMethod(m: z.infer<typeof Message>): Incoming {
  if (m.id !== undefined && (m.result !== undefined || m.error !== undefined)) return { kind: "response" };
  return { kind: "invalid", id: m.id ?? null, code: RpcCode.InvalidRequest, message: "Invalid request: method is required" };
}

export function classify(value: unknown): Incoming {
  if (Array.isArray(value)) {
    return { kind: "invalid", id: null, code: RpcCode.InvalidRequest, message: "batch requests are not supported; send one JSON-RPC message per POST" };
  }
  const parsed = Message.safeParse(value);
  if (!parsed.success) {
    return { kind: "invalid", id: idOf(value), code: RpcCode.InvalidRequest, message: `Invalid request: ${describe(parsed.error.issues)}` };
  }
  const m = parsed.data;
  if (m.method === undefined) return withoutMethod(m);
  const params = m.params ?? EMPTY;
  if (m.id === undefined) return { kind: "notification", method: m.method, params };
  if (m.method.startsWith("notifications/")) {
    return { kind: "invalid", id: m.id, code: RpcCode.InvalidRequest, message: `Invalid request: ${m.method} is a notification and must not have an id` };
  }
  return { kind: "request", id: m.id, method: m.method, params };
}
