/**
 * The process logger: pino JSON, one event per line (pino-pretty when stdout is a terminal,
 * for people), level from `server.log_level`. Credentials in request headers and the secret
 * fields of a config logged under `config` (or a client under `client`) are censored, as a
 * second line of defence behind `redact()` (SPEC 2.1: secrets never reach logs).
 */
import {
  type DestinationStream,
  type Logger,
  type LoggerOptions,
  pino,
} from "pino";

import type { GatewayConfig } from "../config/schema.js";

export const LOG_CENSOR = "***";

const HEADER_SECRETS = [
  "authorization",
  '"x-api-key"',
  '"x-bf-virtual-key"',
  "cookie",
  '"set-cookie"',
  '"proxy-authorization"',
];

const CLIENT_SECRET_PATHS = [
  "connection_string",
  "headers.*",
  "oauth_config.client_secret",
];

export const REDACT_PATHS: readonly string[] = [
  ...HEADER_SECRETS.flatMap((h) => [
    `req.headers["${h}"]`,
    `res.headers["${h}"]`,
    `headers["${h}"]`,
  ]),
  ...CLIENT_SECRET_PATHS.flatMap((p) => [
    `client.${p}`,
    `config.mcp.client_configs[*].${p}`,
  ]),
  "config.governance.virtual_keys[*].value",
  "config.providers.*.api_key",
  "config.server.auth.password",
  "config.server.session_secret",
  "config.state.redis_url",
  "config.state.encryption_key",
];

export interface CreateLoggerOptions {
  /** Where lines go (tests); default stdout, pretty when it is a TTY. */
  readonly destination?: DestinationStream;
  /** Overrides `config.server.log_level`. */
  readonly level?: string;
}

export function loggerOptions(
  config: Pick<GatewayConfig, "server">,
  level?: string,
): LoggerOptions {
  return {
    level: level ?? config.server.log_level,
    base: { service: "toolgate" },
    redact: { paths: [...REDACT_PATHS], censor: LOG_CENSOR },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
}

export function createLogger(
  config: Pick<GatewayConfig, "server">,
  options: CreateLoggerOptions = {},
): Logger {
  const opts = loggerOptions(config, options.level);
  if (options.destination) return pino(opts, options.destination);
  if (process.stdout.isTTY) {
    return pino({
      ...opts,
      transport: {
        target: "pino-pretty",
        options: {
          colorize: true,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,service",
        },
      },
    });
  }
  return pino(opts);
}
