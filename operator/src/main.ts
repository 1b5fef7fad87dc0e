#!/usr/bin/env node
/** The `operator` bin: the only place that reads argv and the environment. */
import { readFile } from "node:fs/promises";
import { hostname } from "node:os";

import { KubeConfig } from "@kubernetes/client-node";
import { GatewayConfig, type GatewayConfigInput } from "@toolgate/gateway";
import { parse as parseYaml } from "yaml";

import { startHealthServer } from "./health-server.js";
import { createLogger } from "./logger.js";
import { OperatorMetrics } from "./metrics.js";
import { Operator } from "./operator.js";
import { parseFlags, USAGE } from "./options.js";
import { formatIssues } from "./render/desired.js";
import { RedisStatusSource } from "./status/redis-status-source.js";
import {
  MemoryStatusSource,
  type StatusSource,
} from "./status/status-source.js";

async function loadBase(path: string): Promise<GatewayConfigInput> {
  const raw: unknown = parseYaml(await readFile(path, "utf8"));
  const check = GatewayConfig.safeParse(raw);
  if (!check.success)
    throw new Error(
      `--base-config ${path}: ${formatIssues("config", check.error)}`,
    );
  return raw as GatewayConfigInput;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(USAGE);
    return;
  }
  const flags = parseFlags(argv, {
    POD_NAMESPACE: process.env.POD_NAMESPACE,
    POD_NAME: process.env.POD_NAME,
    HOSTNAME: process.env.HOSTNAME ?? hostname(),
  });
  const logger = createLogger(flags.logLevel);
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const statusSource: StatusSource = flags.redisUrl
    ? new RedisStatusSource(flags.redisUrl, flags.redisPrefix)
    : new MemoryStatusSource();
  if (!flags.redisUrl)
    logger.warn(
      {},
      "no --redis-url: client status will show no gateway reports",
    );
  const metrics = new OperatorMetrics();
  const operator = new Operator(kc, {
    namespaces: flags.namespaces,
    target: {
      namespace: flags.gatewayNamespace,
      configMap: flags.gatewayConfigMap,
      secret: flags.gatewaySecret,
    },
    ...(flags.baseConfig ? { base: await loadBase(flags.baseConfig) } : {}),
    statusSource,
    statusIntervalMs: flags.statusIntervalMs,
    identity: flags.identity,
    leaseName: flags.leaseName,
    logger,
    metrics,
  });
  const health = await startHealthServer(
    operator,
    metrics.registry,
    flags.healthHost,
    flags.healthPort,
  );
  operator.start();
  logger.info(
    {
      namespaces: flags.namespaces,
      identity: flags.identity,
      healthPort: health.port,
    },
    "operator started",
  );
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    void Promise.all([operator.stop(), health.close()])
      .then(() => statusSource.close())
      .then(() => process.exit(0));
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `toolgate-operator: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
