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

import {
  applyCliOverrides,
  type CliArgs,
  parseCliArgs,
  USAGE,
} from "./config/cli-args.js";
import { defaultConfig } from "./config/defaults.js";
import { processSecretSource, type SecretSource } from "./config/env.js";
import { checkEnv, parseConfigText } from "./config/load.js";
import { redact } from "./config/redact.js";
import { durationMs, type GatewayConfig } from "./config/schema.js";
import { type ConfigWatcher, watchConfig } from "./config/watch.js";
import { isGatewayError } from "./errors.js";
import { gracefulClose } from "./http/graceful-close.js";
import type { Runtime } from "./runtime.js";

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
  if (args.configPath === undefined)
    return { config: applyCliOverrides(defaultConfig(), args) };
  let text: string;
  try {
    text = readFileSync(args.configPath, "utf8");
  } catch (e) {
    const reason =
      (e as NodeJS.ErrnoException).code === "ENOENT"
        ? "the file does not exist"
        : (e as Error).message;
    throw new Error(
      `cannot read the config file ${args.configPath}: ${reason}`,
      { cause: e },
    );
  }
  const config = parseConfigText(text, args.configPath);
  checkEnv(config, args.configPath, secrets);
  return { config: applyCliOverrides(config, args), text };
}

function watchForReload(
  path: string,
  initialText: string | undefined,
  args: CliArgs,
  runtime: Runtime,
  current: { config: GatewayConfig },
): ConfigWatcher {
  return watchConfig(
    path,
    {
      logger: runtime.logger,
      onChange: async (next) => {
        const config = applyCliOverrides(next, args);
        if (!isDeepStrictEqual(config.server, current.config.server)) {
          runtime.logger.warn(
            "server.* changed in the config file; those settings take effect on restart",
          );
        }
        const effective = { ...config, server: current.config.server };
        await runtime.reload(effective);
        current.config = effective;
      },
    },
    initialText,
  );
}

function installShutdown(
  app: FastifyInstance,
  runtime: Runtime,
  watcher: ConfigWatcher | undefined,
): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      runtime.logger.warn(
        { signal },
        "second signal during shutdown; exiting now",
      );
      process.exit(1);
    }
    stopping = true;
    const graceMs = durationMs(
      runtime.getConfig().server.shutdown_grace_period,
    );
    runtime.logger.info(
      { signal, grace_ms: graceMs },
      "shutting down: no new requests; waiting for in-flight ones",
    );
    watcher?.close();
    await gracefulClose(app, graceMs);
    await runtime.close();
    runtime.logger.info("stopped");
    process.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.on(signal, () => {
      shutdown(signal).catch((e: unknown) => {
        runtime.logger.error({ err: e }, "shutdown failed");
        process.exit(1);
      });
    });
  }
}

function readVersion(): string {
  const pkg = JSON.parse(
    readFileSync(new URL("../package.json", import.meta.url), "utf8"),
  ) as {
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

  // The server's modules load only once the command line and the config are known good, so
  // --help and a config mistake answer at once instead of after loading fastify and the SDKs.
  const [{ buildApp }, { createLogger }, { createRuntime }] = await Promise.all(
    [
      import("./app.js"),
      import("./telemetry/logger.js"),
      import("./runtime.js"),
    ],
  );

  const logger = createLogger(current.config);
  logger.debug({ config: redact(current.config) }, "configuration");
  const runtime = createRuntime(current.config, { logger, secrets });
  const app = await buildApp(current.config, {
    logger,
    upstream: runtime.upstream,
    state: runtime.state,
    plugins: runtime.plugins,
  });
  const { host, port } = current.config.server;
  try {
    await app.listen({ host, port });
  } catch (e) {
    await runtime.close();
    fail(
      `cannot listen on ${host}:${port}: ${(e as Error).message}`,
      EXIT_CONFIG,
    );
  }
  const address = app.server.address();
  const boundPort =
    address !== null && typeof address === "object" ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`;
  logger.info(
    { url, config: args.configPath ?? "(embedded default)" },
    "toolgate listening",
  );

  // Connecting happens after listen, so /health answers at once while clients come up.
  runtime
    .start()
    .catch((e: unknown) =>
      logger.error(
        { err: e },
        "starting the runtime (clients, shared state) failed",
      ),
    );
  const watcher =
    args.configPath === undefined
      ? undefined
      : watchForReload(args.configPath, loaded.text, args, runtime, current);
  installShutdown(app, runtime, watcher);
}

main().catch((e: unknown) => {
  // Expected failures carry a message meant for people; anything else is a bug, and the stack helps.
  fail(
    isGatewayError(e)
      ? e.message
      : e instanceof Error
        ? (e.stack ?? e.message)
        : String(e),
    EXIT_CONFIG,
  );
});
