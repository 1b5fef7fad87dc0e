/**
 * The command line and the environment variables that stand in for it. Flags win over the
 * environment, and both win over the file (`--port` is how one runs a second gateway with
 * the same file).
 */
import { parseArgs } from "node:util";

import { GatewayError } from "../errors.js";
import type { GatewayConfig } from "./schema.js";

export interface CliArgs {
  readonly help: boolean;
  readonly version: boolean;
  /** `--config` or TOOLGATE_CONFIG; absent: the embedded default. */
  readonly configPath?: string;
  readonly host?: string;
  readonly port?: number;
}

export const USAGE = `Usage: toolgate [--config FILE] [--host HOST] [--port PORT]

Toolgate: an MCP tool gateway. Without a config file it starts on its embedded default
(in-memory state, one stdio client "everything" with all its tools).

Options:
  -c, --config FILE   configuration file, JSON or YAML        (env TOOLGATE_CONFIG)
      --host HOST     address to listen on; overrides server.host (env TOOLGATE_HOST)
  -p, --port PORT     port to listen on, 0 = any free port;
                      overrides server.port                   (env TOOLGATE_PORT)
  -h, --help          show this help
  -v, --version       print the version

Other environment variables:
  TOOLGATE_SECRETS_DIR  directory of files named after variables, read for env.<VAR>
                        references not set in the environment (a mounted Secret)
  TOOLGATE_REDIS_URL    state store URL when the file has no state.redis_url
`;

function usageError(message: string): GatewayError {
  return new GatewayError("TG_ERR_VALIDATION", `${message}\n\n${USAGE}`);
}

function parsePort(value: string, from: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw usageError(`${from} "${value}" is not a port number (0-65535)`);
  return Number(value);
}

const nonEmpty = (v: string | undefined): string | undefined =>
  v === undefined || v === "" ? undefined : v;

/** Throws a GatewayError with the usage text for unknown flags or a bad port. */
export function parseCliArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): CliArgs {
  let values: {
    config?: string | undefined;
    host?: string | undefined;
    port?: string | undefined;
    help?: boolean | undefined;
    version?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: "string", short: "c" },
        host: { type: "string" },
        port: { type: "string", short: "p" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw usageError((e as Error).message);
  }
  const configPath = nonEmpty(values.config) ?? nonEmpty(env.TOOLGATE_CONFIG);
  const host = nonEmpty(values.host) ?? nonEmpty(env.TOOLGATE_HOST);
  const portText = nonEmpty(values.port) ?? nonEmpty(env.TOOLGATE_PORT);
  const portFrom =
    nonEmpty(values.port) === undefined ? "TOOLGATE_PORT" : "--port";
  return {
    help: values.help === true,
    version: values.version === true,
    ...(configPath === undefined ? {} : { configPath }),
    ...(host === undefined ? {} : { host }),
    ...(portText === undefined ? {} : { port: parsePort(portText, portFrom) }),
  };
}

/** The config with `--host`/`--port` (or their variables) applied. */
export function applyCliOverrides(
  config: GatewayConfig,
  args: Pick<CliArgs, "host" | "port">,
): GatewayConfig {
  if (args.host === undefined && args.port === undefined) return config;
  return {
    ...config,
    server: {
      ...config.server,
      host: args.host ?? config.server.host,
      port: args.port ?? config.server.port,
    },
  };
}
