/**
 * The gateway's error catalogue: every error the gateway raises on purpose has a stable code,
 * an HTTP status and a message that names the thing and the fix. The fastify error handler
 * turns a `GatewayError` into `{error: {code, message, details?}}`; anything else becomes a
 * 500 with no internals. JSON-RPC codes on /mcp are wire errors and live in `mcp/`, apart
 * from these.
 *
 * Add a code here (alphabetical within its group) rather than throwing ad-hoc errors.
 */

export const ERRORS = {
  // 400
  TG_ERR_VALIDATION: { status: 400, message: "the request is invalid" },
  TG_ERR_BODY_INVALID_JSON: {
    status: 400,
    message: "the request body is not valid JSON",
  },
  TG_ERR_UNKNOWN_PROVIDER: { status: 400, message: "unknown provider" },
  // 401 / 403
  TG_ERR_UNAUTHORIZED: { status: 401, message: "authentication required" },
  TG_ERR_VIRTUAL_KEY_REQUIRED: {
    status: 401,
    message: "a virtual key is required",
  },
  TG_ERR_VIRTUAL_KEY_INVALID: {
    status: 401,
    message: "the virtual key is unknown or inactive",
  },
  TG_ERR_FORBIDDEN: { status: 403, message: "forbidden" },
  TG_ERR_STDIO_FROM_API: {
    status: 403,
    message: "creating stdio clients through the API is disabled",
  },
  TG_ERR_ORIGIN_NOT_ALLOWED: {
    status: 403,
    message: "the Origin is not allowed",
  },
  // 404
  TG_ERR_NOT_FOUND: { status: 404, message: "not found" },
  TG_ERR_CLIENT_NOT_FOUND: {
    status: 404,
    message: "no MCP client with that id",
  },
  TG_ERR_TOOL_NOT_FOUND: { status: 404, message: "no such tool" },
  // 409
  TG_ERR_CONFLICT: { status: 409, message: "conflict" },
  TG_ERR_CLIENT_NAME_TAKEN: {
    status: 409,
    message: "an MCP client with that name exists",
  },
  TG_ERR_CLIENT_FROM_FILE: {
    status: 409,
    message: "the client comes from the config file",
  },
  // 413 / 415 / 429
  TG_ERR_BODY_TOO_LARGE: {
    status: 413,
    message: "the request body is too large",
  },
  TG_ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message:
      "the request body's Content-Type is not supported; send application/json",
  },
  TG_ERR_TOO_MANY_REQUESTS: { status: 429, message: "too many requests" },
  TG_ERR_QUEUE_FULL: { status: 429, message: "request dropped: queue is full" },
  // 5xx
  TG_ERR_INTERNAL: { status: 500, message: "internal error" },
  TG_ERR_STATE_FORMAT: {
    status: 500,
    message: "a value in the state store has an unsupported format",
  },
  TG_ERR_UPSTREAM: { status: 502, message: "the upstream failed" },
  TG_ERR_CLIENT_NOT_CONNECTED: {
    status: 503,
    message: "the MCP client is not connected",
  },
  TG_ERR_STATE_UNAVAILABLE: {
    status: 503,
    message: "the state store is unavailable",
  },
  TG_ERR_SHUTTING_DOWN: {
    status: 503,
    message: "the gateway is shutting down",
  },
  TG_ERR_TIMEOUT: { status: 504, message: "timed out" },
  // config (not HTTP, but shown on stderr / in reload logs)
  TG_ERR_CONFIG_INVALID: {
    status: 400,
    message: "the configuration is invalid",
  },
  TG_ERR_CONFIG_ENV_MISSING: {
    status: 400,
    message:
      "environment variables referenced by the configuration are not set",
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: unknown;

  constructor(
    code: ErrorCode,
    message?: string,
    details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message ?? ERRORS[code].message, options);
    this.name = "GatewayError";
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = details;
  }

  toJSON(): { code: ErrorCode; message: string; details?: unknown } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
