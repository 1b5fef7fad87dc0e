/**
 * One error envelope for every HTTP endpoint: `{error: {code, message, details?}}`.
 *
 * - `GatewayError`: its own code, status, message and details (deliberate, so safe to show).
 * - zod errors and fastify schema-validation errors: 400 `TG_ERR_VALIDATION` with
 *   `details.problems[]` of `{path, message}` (`body.tools_to_execute[0]`).
 * - fastify's own client errors (body too large, bad JSON, bad Content-Type): their
 *   catalogue code and status.
 * - Anything else is a bug or an outage: 500 `TG_ERR_INTERNAL` with a fixed message; the
 *   error itself is logged with the request id and never sent.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";

import { formatPath } from "../config/redact.js";
import {
  type ErrorCode,
  ERRORS,
  GatewayError,
  isGatewayError,
} from "../errors.js";

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

function body(code: string, message: string, details?: unknown): ErrorBody {
  return {
    error:
      details === undefined ? { code, message } : { code, message, details },
  };
}

/** `body.name`, `query.limit[0]`; the prefix says which part of the request was wrong. */
function joinPath(
  prefix: string | undefined,
  path: readonly (string | number)[],
): string {
  const rest = formatPath(path);
  if (!prefix) return rest;
  return path.length === 0
    ? prefix
    : `${prefix}${rest.startsWith("[") ? "" : "."}${rest}`;
}

export function zodProblems(
  error: z.ZodError,
  prefix?: string,
): FieldProblem[] {
  return error.issues.flatMap((i) => {
    const path = i.path.filter(
      (p): p is string | number => typeof p !== "symbol",
    );
    if (i.code === "unrecognized_keys")
      return i.keys.map((k) => ({
        path: joinPath(prefix, [...path, k]),
        message: "unknown field",
      }));
    return [{ path: joinPath(prefix, path), message: i.message }];
  });
}

const CONTEXT_PREFIX: Record<string, string> = {
  body: "body",
  querystring: "query",
  params: "params",
  headers: "headers",
};

/** fastify's ajv errors carry an `instancePath` like `/tools_to_execute/0`. */
function fastifyProblems(error: FastifyError): FieldProblem[] {
  const prefix = CONTEXT_PREFIX[error.validationContext ?? "body"] ?? "body";
  return (error.validation ?? []).map((v) => {
    const segments = v.instancePath
      .split("/")
      .filter((s) => s !== "")
      .map((s) =>
        /^\d+$/.test(s)
          ? Number(s)
          : s.replaceAll("~1", "/").replaceAll("~0", "~"),
      );
    const missing = (v.params as { missingProperty?: unknown }).missingProperty;
    if (typeof missing === "string") segments.push(missing);
    const extra = (v.params as { additionalProperty?: unknown })
      .additionalProperty;
    if (typeof extra === "string")
      return {
        path: joinPath(prefix, [...segments, extra]),
        message: "unknown field",
      };
    return {
      path: joinPath(prefix, segments),
      message: v.message ?? "is invalid",
    };
  });
}

/** fastify's own error codes that are the client's fault, in our catalogue. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "TG_ERR_BODY_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "TG_ERR_UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "TG_ERR_VALIDATION",
  FST_ERR_CTP_EMPTY_JSON_BODY: "TG_ERR_BODY_INVALID_JSON",
  FST_ERR_CTP_INVALID_JSON_BODY: "TG_ERR_BODY_INVALID_JSON",
};

/** Generic catalogue entries for client errors raised by plugins with only a status code. */
const BY_STATUS: Record<number, ErrorCode> = {
  400: "TG_ERR_VALIDATION",
  401: "TG_ERR_UNAUTHORIZED",
  403: "TG_ERR_FORBIDDEN",
  404: "TG_ERR_NOT_FOUND",
  409: "TG_ERR_CONFLICT",
  413: "TG_ERR_BODY_TOO_LARGE",
  415: "TG_ERR_UNSUPPORTED_MEDIA_TYPE",
  429: "TG_ERR_TOO_MANY_REQUESTS",
};

export interface ErrorReply {
  readonly status: number;
  readonly body: ErrorBody;
}

function isZodError(e: unknown): e is z.ZodError {
  // `instanceof` fails across duplicated zod copies; the name and issues array are what matter.
  return (
    e instanceof z.ZodError ||
    (e instanceof Error &&
      e.name === "ZodError" &&
      Array.isArray((e as z.ZodError).issues))
  );
}

function clientError(
  e: FastifyError,
  bodyLimit: number | undefined,
): ErrorReply | undefined {
  const mapped = FASTIFY_CODES[e.code];
  if (mapped === "TG_ERR_BODY_TOO_LARGE") {
    const message =
      bodyLimit === undefined
        ? ERRORS[mapped].message
        : `the request body is larger than the limit of ${bodyLimit} bytes`;
    return {
      status: 413,
      body: body(
        mapped,
        message,
        bodyLimit === undefined ? undefined : { limit_bytes: bodyLimit },
      ),
    };
  }
  if (mapped)
    return {
      status: ERRORS[mapped].status,
      body: body(mapped, ERRORS[mapped].message),
    };
  const status = e.statusCode;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  // A 4xx raised by fastify or a plugin describes the request, not our internals.
  return {
    status,
    body: body(BY_STATUS[status] ?? "TG_ERR_VALIDATION", e.message),
  };
}

/** The reply for any error; `undefined` status-less errors become 500s. */
export function errorReply(e: unknown, bodyLimit?: number): ErrorReply {
  if (isGatewayError(e))
    return { status: e.status, body: { error: e.toJSON() } };
  if (isZodError(e)) {
    return {
      status: 400,
      body: body("TG_ERR_VALIDATION", ERRORS.TG_ERR_VALIDATION.message, {
        problems: zodProblems(e),
      }),
    };
  }
  const fe = e as FastifyError;
  if (Array.isArray(fe.validation)) {
    return {
      status: 400,
      body: body("TG_ERR_VALIDATION", ERRORS.TG_ERR_VALIDATION.message, {
        problems: fastifyProblems(fe),
      }),
    };
  }
  return (
    (typeof fe.code === "string" || typeof fe.statusCode === "number"
      ? clientError(fe, bodyLimit)
      : undefined) ?? {
      status: 500,
      body: body("TG_ERR_INTERNAL", ERRORS.TG_ERR_INTERNAL.message),
    }
  );
}

/** The fastify error handler (`app.setErrorHandler(errorHandler)`). */
export function errorHandler(
  this: unknown,
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const { status, body: payload } = errorReply(
    error,
    request.routeOptions.bodyLimit,
  );
  if (status >= 500) {
    // The request logger carries reqId, so the 500 in the client's hands can be found here.
    request.log.error({ err: error }, `request failed: ${payload.error.code}`);
  } else {
    request.log.info(
      { code: payload.error.code, status },
      payload.error.message,
    );
  }
  return reply
    .status(status)
    .type("application/json; charset=utf-8")
    .send(payload);
}

/** The not-found handler: unknown routes get the same envelope. */
export function notFoundHandler(
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const error = new GatewayError(
    "TG_ERR_NOT_FOUND",
    `no route for ${request.method} ${request.url.split("?")[0] ?? "/"}`,
  );
  return reply
    .status(404)
    .type("application/json; charset=utf-8")
    .send({ error: error.toJSON() });
}
