#!/usr/bin/env node
/**
 * The `toolgate` process: the only place that reads argv and the environment and calls
 * `listen`. Start: parse the flags, load and validate the config (or take the embedded
 * default), check every `env.` reference, build the services and the app, listen, then
 * connect the upstream clients in the background (so /health answers at once). A config
 * file is watched: a valid change is applied to the clients; `server.*` needs a restart.
 * SIGTERM/SIGINT: stop accepting, let in-flight requests finish within
 * `server.shutdown_grace_period`, close upstream connections (stdio children included) and the
 * state store, exit 0.
 *
 * A bad config or bad flags end the process with the problems on stderr and no stack trace.
 */
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";

import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";

import type { AppPlugin } from "./app.js";
import { applyCliOverrides, type CliArgs, parseCliArgs, USAGE } from "./config/cli-args.js";
import { defaultConfig } from "./config/defaults.js";
import { processSecretSource, type SecretSource } from "./config/env.js";
import { checkEnv, parseConfigText } from "./config/load.js";
import { durationMs, type GatewayConfig } from "./config/schema.js";
import { type ConfigWatcher, watchConfig } from "./config/watch.js";
import { isGatewayError } from "./errors.js";
import { gracefulClose } from "./http/graceful-close.js";
import type { StateStore } from "./state/index.js";
import type { UpstreamManager } from "./upstream/index.js";

/** Exit codes: 1 = the configuration (or startup) failed, 2 = bad command line. */
const EXIT_CONFIG = 1;
const EXIT_USAGE = 2;

function fail(message: string, code: number): never {
  process.stderr.write(`toolgate: ${message}\n`);
  process.exit(code);
}

interface Loaded {
  readonly config: GatewayConfig;
  /** The file's text, so the watcher does not re-apply an unchanged file. */
  readonly text?: string;
}

function loadStartupConfig(args: CliArgs, secrets: SecretSource): Loaded {
  if (args.configPath === undefined) return { config: applyCliOverrides(defaultConfig(), args) };
  let text: string;
  try {
    text = readFileSync(args.configPath, "utf8");
  } catch (e) {
    const reason =
      (e as NodeJS.ErrnoException).code === "ENOENT" ? "the file does not exist" : (e as Error).message;
    throw new Error(`cannot read the config file ${args.configPath}: ${reason}`, { cause: e });
  }
  const config = parseConfigText(text, args.configPath);
  checkEnv(config, args.configPath, secrets);
  return { config: applyCliOverrides(config, args), text };
}

interface Services {
  readonly logger: Logger;
  readonly upstream: UpstreamManager;
  readonly state: StateStore;
}

/**
 * The feature plugins. /mcp, /api, /config, /v1 and /metrics are registered here as their
 * parts land; each takes what it needs from `services` and `getConfig`.
 */
function featurePlugins(_services: Services, _getConfig: () => GatewayConfig): AppPlugin[] {
  return [];
}

function watchForReload(
  path: string,
  initialText: string | undefined,
  args: CliArgs,
  services: Services,
  current: { config: GatewayConfig },
): ConfigWatcher {
  return watchConfig(
    path,
    {
      logger: services.logger,
      onChange: async (next) => {
        const config = applyCliOverrides(next, args);
        if (!isDeepStrictEqual(config.server, current.config.server)) {
          services.logger.warn("server.* changed in the config file; those settings take effect on restart");
        }
        current.config = { ...config, server: current.config.server };
        await services.upstream.apply(current.config);
      },
    },
    initialText,
  );
}

function installShutdown(
  app: FastifyInstance,
  services: Services,
  getConfig: () => GatewayConfig,
  watcher: ConfigWatcher | undefined,
): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      services.logger.warn({ signal }, "second signal during shutdown; exiting now");
      process.exit(1);
    }
    stopping = true;
    const graceMs = durationMs(getConfig().server.shutdown_grace_period);
    services.logger.info(
      { signal, grace_ms: graceMs },
      "shutting down: no new requests; waiting for in-flight ones",
    );
    watcher?.close();
    await gracefulClose(app, graceMs);
    await Promise.allSettled([services.upstream.close(), services.state.close()]);
    services.logger.info("stopped");
    process.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      shutdown(signal).catch((e: unknown) => {
        services.logger.error({ err: e }, "shutdown failed");
        process.exit(1);
      });
    });
  }
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version?: string;
  };
  return pkg.version ?? "0.0.0";
}

/** The parsed command line, or undefined when it only asked for help or the version (already printed). */
function commandLine(): CliArgs | undefined {
  let args: CliArgs;
  try {
    args = parseCliArgs(process.argv.slice(2), process.env);
  } catch (e) {
    fail((e as Error).message, EXIT_USAGE);
  }
  if (args.help) process.stdout.write(USAGE);
  else if (args.version) process.stdout.write(`${readVersion()}\n`);
  else return args;
  return undefined;
}

async function main(): Promise<void> {
  const args = commandLine();
  if (!args) return;

  const secrets = processSecretSource();
  let loaded: Loaded;
  try {
    loaded = loadStartupConfig(args, secrets);
  } catch (e) {
    // ConfigError messages already list every problem, one per line.
    fail((e as Error).message, EXIT_CONFIG);
  }
  const current = { config: loaded.config };
  const getConfig = () => current.config;

  // The server's modules load only once the command line and the config are known good, so
  // --help and a config mistake answer at once instead of after loading fastify and the SDKs.
  const [
    { buildApp },
    { configuredRedisUrl, createStateStore },
    { createLogger },
    { createUpstreamManager },
  ] = await Promise.all([
    import("./app.js"),
    import("./state/index.js"),
    import("./telemetry/logger.js"),
    import("./upstream/index.js"),
  ]);

  const logger = createLogger(current.config);
  const state = createStateStore({
    redisUrl: configuredRedisUrl(current.config.state, process.env),
    logger,
    secrets,
  });
  const upstream = createUpstreamManager({ logger, secrets });
  const services: Services = { logger, upstream, state };

  const app = await buildApp(current.config, {
    logger,
    upstream,
    state,
    plugins: featurePlugins(services, getConfig),
  });
  const { host, port } = current.config.server;
  try {
    await app.listen({ host, port });
  } catch (e) {
    await Promise.allSettled([upstream.close(), state.close()]);
    fail(`cannot listen on ${host}:${port}: ${(e as Error).message}`, EXIT_CONFIG);
  }
  const address = app.server.address();
  const boundPort = address !== null && typeof address === "object" ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`;
  logger.info({ url, config: args.configPath ?? "(embedded default)" }, "toolgate listening");

  upstream
    .apply(current.config)
    .catch((e: unknown) => logger.error({ err: e }, "starting the upstream clients failed"));
  const watcher =
    args.configPath === undefined
      ? undefined
      : watchForReload(args.configPath, loaded.text, args, services, current);
  installShutdown(app, services, getConfig, watcher);
}

main().catch((e: unknown) => {
  // Expected failures carry a message meant for people; anything else is a bug, and the stack helps.
  fail(isGatewayError(e) ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e), EXIT_CONFIG);
});
