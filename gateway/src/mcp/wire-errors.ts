/**
 * JSON-RPC error codes that cross the wire on /mcp. These are protocol errors for MCP clients,
 * kept apart from the gateway's internal catalogue (errors.ts) as the MCP SDK keeps its
 * ErrorCode apart from its local errors. -32000..-32099 is JSON-RPC's server-defined range.
 */
import type { ErrorCode as GatewayErrorCode } from "../errors.js";

export const RpcCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** No virtual key where one is required, or an unknown/inactive key (HTTP 401). */
  Unauthorized: -32001,
  /** The state store or an upstream the request needs is unavailable (HTTP 503). */
  Unavailable: -32002,
  /** Origin not allowed (HTTP 403). */
  Forbidden: -32003,
  /** Mcp-Session-Id that does not verify or belongs to another caller (HTTP 404). */
  SessionNotFound: -32004,
  /** Body over the size limit (HTTP 413). */
  RequestTooLarge: -32005,
} as const;

export type RpcCode = (typeof RpcCode)[keyof typeof RpcCode];

export type RpcId = string | number | null;

/** The serialised error envelope; `id` is null when the request's id could not be read. */
export function rpcError(
  id: RpcId,
  code: number,
  message: string,
  data?: unknown,
): string {
  const error =
    data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** Wire code for a gateway error surfaced on /mcp. */
export function rpcCodeFor(code: GatewayErrorCode, status: number): number {
  if (status === 401) return RpcCode.Unauthorized;
  if (status === 403) return RpcCode.Forbidden;
  if (status === 413) return RpcCode.RequestTooLarge;
  if (status === 503 || status === 504) return RpcCode.Unavailable;
  if (code === "TG_ERR_VALIDATION") return RpcCode.InvalidParams;
  return RpcCode.InternalError;
}
