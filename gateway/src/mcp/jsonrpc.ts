/**
 * Reading one JSON-RPC 2.0 message from an /mcp POST body. The envelope is checked with zod;
 * `params` stays as given (methods check their own). Batches are refused: MCP removed
 * JSON-RPC batching in protocol 2025-06-18, and a gateway that fans a batch out to several
 * upstreams would have no good answer for partial failure.
 *
 * Every /mcp POST passes here, so a well-formed envelope is recognised by a few typeof checks
 * (`wellFormed`); zod runs only when those fail, to word the error. The checks accept a subset
 * of what the zod schema accepts (a test compares the two on a table of envelopes), so the
 * schema stays the one definition of a valid message.
 */
import { z } from "zod";

import { exceedsDepth, MAX_JSON_DEPTH } from "./json-depth.js";
import { RpcCode, type RpcId } from "./wire-errors.js";

const Id = z.union([z.string(), z.int()]);

export const Message = z.object({
  jsonrpc: z.literal("2.0", { message: 'jsonrpc must be "2.0"' }),
  id: Id.optional(),
  method: z.string().min(1).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

export type Incoming =
  | {
      readonly kind: "request";
      readonly id: string | number;
      readonly method: string;
      readonly params: Record<string, unknown>;
    }
  | {
      readonly kind: "notification";
      readonly method: string;
      readonly params: Record<string, unknown>;
    }
  /** A client's response to a server request; the gateway sends none, so these are acknowledged and dropped. */
  | { readonly kind: "response" }
  | {
      readonly kind: "invalid";
      readonly id: RpcId;
      readonly code: number;
      readonly message: string;
    };

const EMPTY: Record<string, unknown> = Object.freeze({});

function idOf(value: unknown): RpcId {
  if (typeof value !== "object" || value === null || !("id" in value))
    return null;
  const id = value.id;
  return typeof id === "string" ||
    (typeof id === "number" && Number.isInteger(id))
    ? id
    : null;
}

function describe(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((i) =>
      i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message,
    )
    .join("; ");
}

export function readMessage(
  text: string,
  maxDepth: number = MAX_JSON_DEPTH,
): Incoming {
  if (exceedsDepth(text, maxDepth)) {
    return {
      kind: "invalid",
      id: null,
      code: RpcCode.InvalidRequest,
      message: `JSON nesting deeper than ${maxDepth} levels`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return {
      kind: "invalid",
      id: null,
      code: RpcCode.ParseError,
      message: `Parse error: ${(e as Error).message}`,
    };
  }
  return classify(value);
}

/** A message with no method is a client's response to the server, or invalid. */
function withoutMethod(m: Envelope): Incoming {
  if (m.id !== undefined && (m.result !== undefined || m.error !== undefined))
    return { kind: "response" };
  return {
    kind: "invalid",
    id: m.id ?? null,
    code: RpcCode.InvalidRequest,
    message: "Invalid request: method is required",
  };
}

interface Envelope {
  readonly jsonrpc: "2.0";
  readonly id?: string | number | undefined;
  readonly method?: string | undefined;
  readonly params?: Record<string, unknown> | undefined;
  readonly result?: unknown;
  readonly error?: unknown;
}

const isId = (v: unknown): boolean =>
  typeof v === "string" || Number.isSafeInteger(v);
const isRecord = (v: unknown): boolean =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The common case, checked without zod: an object whose known fields all have their schema types. */
export function wellFormed(value: unknown): value is Envelope {
  if (!isRecord(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return false;
  if (m.id !== undefined && !isId(m.id)) return false;
  if (
    m.method !== undefined &&
    (typeof m.method !== "string" || m.method === "")
  )
    return false;
  return m.params === undefined || isRecord(m.params);
}

export function classify(value: unknown): Incoming {
  if (wellFormed(value)) return fromEnvelope(value);
  if (Array.isArray(value)) {
    return {
      kind: "invalid",
      id: null,
      code: RpcCode.InvalidRequest,
      message:
        "batch requests are not supported; send one JSON-RPC message per POST",
    };
  }
  const parsed = Message.safeParse(value);
  if (!parsed.success) {
    return {
      kind: "invalid",
      id: idOf(value),
      code: RpcCode.InvalidRequest,
      message: `Invalid request: ${describe(parsed.error.issues)}`,
    };
  }
  return fromEnvelope(parsed.data);
}

function fromEnvelope(m: Envelope): Incoming {
  if (m.method === undefined) return withoutMethod(m);
  const params = m.params ?? EMPTY;
  if (m.id === undefined)
    return { kind: "notification", method: m.method, params };
  if (m.method.startsWith("notifications/")) {
    return {
      kind: "invalid",
      id: m.id,
      code: RpcCode.InvalidRequest,
      message: `Invalid request: ${m.method} is a notification and must not have an id`,
    };
  }
  return { kind: "request", id: m.id, method: m.method, params };
}
