/**
 * Access to the admin surface (/api/*, /config, /metrics).
 *
 * With `server.auth` set: HTTP Basic, compared in constant time (both sides are hashed first,
 * so neither the content nor the length of the secret leaks through timing). The password
 * may be an `env.<VAR>` reference, resolved per request so a rotated Secret applies at once.
 *
 * Without it: loopback callers only (127.0.0.0/8, ::1, IPv4-mapped loopback); anyone else
 * gets 403. The socket address is used, never X-Forwarded-For: a header is the caller's
 * claim. (A reverse proxy on the same host makes every caller loopback; set `server.auth`
 * in that setup.)
 */
import { createHash, timingSafeEqual } from "node:crypto";

import type {
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from "fastify";

import {
  processSecretSource,
  resolveSecret,
  type SecretSource,
} from "../config/env.js";
import type { GatewayConfig } from "../config/schema.js";
import { GatewayError } from "../errors.js";

export const BASIC_REALM = "toolgate";

function digest(s: string): Buffer {
  return createHash("sha256").update(s, "utf8").digest();
}

export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4.startsWith("127.") || address === "::1";
}

/** `user:password` of an `Authorization: Basic` header, or undefined when absent or malformed. */
export function parseBasic(
  header: string | undefined,
): { username: string; password: string } | undefined {
  const m = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!m?.[1]) return undefined;
  const decoded = Buffer.from(m[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return {
    username: decoded.slice(0, colon),
    password: decoded.slice(colon + 1),
  };
}

export interface AdminAuthOptions {
  readonly secrets?: SecretSource;
}

function requireLoopback(request: FastifyRequest): void {
  if (isLoopback(request.socket.remoteAddress)) return;
  throw new GatewayError(
    "TG_ERR_FORBIDDEN",
    "the admin endpoints answer loopback callers only; set server.auth (username and password) to allow remote access",
  );
}

function requireBasic(
  request: FastifyRequest,
  reply: FastifyReply,
  auth: { username: string; password: string },
  secrets: SecretSource,
): void {
  const given = parseBasic(request.headers.authorization);
  const password = resolveSecret(auth.password, secrets);
  // Both comparisons always run, so a wrong username costs the same time as a wrong password.
  const userOk = safeEqual(given?.username ?? "", auth.username);
  const passOk = safeEqual(given?.password ?? "", password);
  if (given && userOk && passOk) return;
  void reply.header(
    "www-authenticate",
    `Basic realm="${BASIC_REALM}", charset="UTF-8"`,
  );
  throw new GatewayError(
    "TG_ERR_UNAUTHORIZED",
    given ? "wrong username or password" : "HTTP Basic authentication required",
  );
}

/**
 * The preHandler guarding admin routes. `config` may be a getter so a reloaded
 * `server.auth` applies without rebuilding the routes.
 */
export function adminAuth(
  config: GatewayConfig | (() => GatewayConfig),
  options: AdminAuthOptions = {},
): preHandlerAsyncHookHandler {
  const current = typeof config === "function" ? config : () => config;
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify needs an async hook (or a callback) to reject with an error
  return async function adminAuthHook(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const auth = current().server.auth;
    if (auth)
      requireBasic(
        request,
        reply,
        auth,
        options.secrets ?? processSecretSource(),
      );
    else requireLoopback(request);
  };
}
