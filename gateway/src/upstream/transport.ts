/**
 * Builds the SDK client transport for one client configuration. Secrets (`env.` references
 * in connection_string and header values) are resolved here, at connect time, so a rotated
 * Secret takes effect on the next (re)connect.
 *
 * stdio environment: the child gets ONLY the variables named in `stdio_config.envs`, plus a
 * base set a process needs to start. The base set is the SDK's default (HOME, LOGNAME, PATH,
 * SHELL, TERM, USER; the SDK always merges these) plus TMPDIR and LANG, so temp files and
 * text encoding behave as in the gateway. A named variable that is not set is left out with a
 * warning rather than failing the connect: servers commonly treat variables as optional.
 * The child's stderr is piped into the gateway's log at debug level instead of being inherited.
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "pino";

import type { SecretSource } from "../config/env.js";
import { processSecretSource, resolveSecret } from "../config/env.js";
import type { ClientConfig } from "../config/schema.js";
import { ClientConfigError } from "./classify.js";
import type { HttpTarget } from "./http-tool-call.js";

/** Variables every stdio child gets besides those named in `envs` (the SDK adds HOME, LOGNAME, PATH, SHELL, TERM, USER). */
export const STDIO_BASE_ENV: readonly string[] = [
  "HOME",
  "LOGNAME",
  "PATH",
  "SHELL",
  "TERM",
  "USER",
  "TMPDIR",
  "LANG",
];

export interface TransportDeps {
  readonly logger: Logger;
  readonly secrets?: SecretSource | undefined;
  readonly authHeaders?:
    ((client: ClientConfig) => Promise<Record<string, string>>) | undefined;
}

export function stdioEnv(
  client: ClientConfig,
  source: SecretSource,
  logger: Logger,
): Record<string, string> {
  const env: Record<string, string> = {};
  const names = [...STDIO_BASE_ENV, ...(client.stdio_config?.envs ?? [])];
  for (const name of names) {
    const value = source.env[name];
    if (value !== undefined) env[name] = value;
    else if (!STDIO_BASE_ENV.includes(name))
      logger.warn(
        { client: client.name, variable: name },
        "environment variable named in stdio_config.envs is not set; not passed to the server",
      );
  }
  return env;
}

function resolveUrl(client: ClientConfig, source: SecretSource): URL {
  if (!client.connection_string)
    throw new ClientConfigError(
      `MCP client "${client.name}": connection_string is required for ${client.connection_type}`,
    );
  const raw = resolveSecret(client.connection_string, source);
  try {
    return new URL(raw);
  } catch {
    throw new ClientConfigError(
      `MCP client "${client.name}": connection_string is not a valid URL`,
    );
  }
}

function staticHeaders(
  client: ClientConfig,
  source: SecretSource,
): Record<string, string> {
  const out: Record<string, string> = {};
  if (client.auth_type !== "headers") return out;
  for (const [k, v] of Object.entries(client.headers ?? {}))
    out[k] = resolveSecret(v, source);
  return out;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that sets the static headers and the hook's headers (fetched anew) on every request. */
function headerFetch(
  client: ClientConfig,
  fixed: Record<string, string>,
  hook: TransportDeps["authHeaders"],
): FetchLike {
  return async (url, init) => {
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(fixed)) headers.set(k, v);
    if (hook)
      for (const [k, v] of Object.entries(await hook(client)))
        headers.set(k, v);
    return fetch(url, { ...init, headers });
  };
}

function stdioTransport(
  client: ClientConfig,
  source: SecretSource,
  logger: Logger,
): StdioClientTransport {
  const cfg = client.stdio_config;
  if (!cfg)
    throw new ClientConfigError(
      `MCP client "${client.name}": stdio_config is required for stdio`,
    );
  const transport = new StdioClientTransport({
    command: cfg.command,
    args: cfg.args,
    env: stdioEnv(client, source, logger),
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    logger.debug(
      { client: client.name, stderr: chunk.toString("utf8").trimEnd() },
      "stdio server stderr",
    );
  });
  return transport;
}

/** Where and with which headers an http client's tool calls go (the fast path in http-tool-call.ts). */
export function httpTarget(
  client: ClientConfig,
  deps: TransportDeps,
): HttpTarget {
  const source = deps.secrets ?? processSecretSource();
  const url = resolveUrl(client, source);
  const fixed = staticHeaders(client, source);
  const hook = deps.authHeaders;
  return hook
    ? { url, headers: fixed, authHeaders: () => hook(client) }
    : { url, headers: fixed };
}

export function createTransport(
  client: ClientConfig,
  deps: TransportDeps,
): Transport {
  const source = deps.secrets ?? processSecretSource();
  if (client.connection_type === "stdio")
    return stdioTransport(client, source, deps.logger);
  const url = resolveUrl(client, source);
  const fetchFn = headerFetch(
    client,
    staticHeaders(client, source),
    deps.authHeaders,
  );
  return client.connection_type === "http"
    ? new StreamableHTTPClientTransport(url, { fetch: fetchFn })
    : new SSEClientTransport(url, { fetch: fetchFn });
}
