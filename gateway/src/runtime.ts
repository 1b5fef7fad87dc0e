/**
 * The gateway's services and feature plugins, built once from a validated config: state store,
 * telemetry, upstream connections, the API client set, governance, chat, /mcp, the management
 * API and /metrics. main.ts (or a test) builds a Runtime, hands `plugins` to buildApp, listens,
 * then calls `start()`; a config reload goes through `reload()`, PATCH /config through
 * `patchClient()`, and shutdown through `close()`.
 *
 * Everything that can change at runtime is read through `getConfig()`, so there is one
 * running config and every part sees the same one.
 */
import type { Logger } from "pino";

import { clientRoutes } from "./api/client-routes.js";
import { ClientService } from "./api/client-service.js";
import {
  type ClientSectionValue,
  type ConfigPatch,
  configRoutes,
} from "./api/config-routes.js";
import type { AppPlugin } from "./app.js";
import { type Chat, createChat } from "./chat/index.js";
import { createCodeMode } from "./codemode/index.js";
import {
  processSecretSource,
  resolveSecret,
  type SecretSource,
} from "./config/env.js";
import { durationMs, type GatewayConfig } from "./config/schema.js";
import { createFleetSync, healthInput } from "./fleet/index.js";
import {
  createGovernance,
  type VirtualKeyGovernance,
} from "./governance/index.js";
import { adminAuth } from "./http/admin-auth.js";
import {
  mcpPlugin,
  toolHeaderFilter,
  type VirtualToolSource,
} from "./mcp/index.js";
import { parseToolHeaders } from "./registry/index.js";
import {
  configuredRedisUrl,
  createClusterEvents,
  createFleetHealth,
  createRuntimeClients,
  createSealer,
  createStateStore,
  createToolSnapshots,
  type FleetHealth,
  resolvePodId,
  type RuntimeClients,
  type StateStore,
} from "./state/index.js";
import { createTelemetry, type Telemetry } from "./telemetry/index.js";
import { createUpstreamManager } from "./upstream/index.js";

export interface RuntimeOptions {
  readonly logger: Logger;
  readonly secrets?: SecretSource;
  /** Overrides the pod id (TOOLGATE_POD_ID / HOSTNAME / random). */
  readonly podId?: string;
  /** Tools beyond the upstreams' (code mode's meta-tools), served on /mcp. */
  readonly virtualTools?: VirtualToolSource;
}

export type Upstreams = ReturnType<typeof createUpstreamManager>;

export interface Runtime {
  readonly logger: Logger;
  readonly podId: string;
  readonly state: StateStore;
  readonly telemetry: Telemetry;
  readonly upstream: Upstreams;
  readonly governance: VirtualKeyGovernance;
  readonly chat: Chat;
  readonly clients: ClientService;
  readonly runtimeClients: RuntimeClients;
  readonly fleetHealth: FleetHealth;
  /** The feature plugins for buildApp, in registration order. */
  readonly plugins: readonly AppPlugin[];
  getConfig(): GatewayConfig;
  /** Loads API-created clients, starts shared-state services and connects every client. */
  start(): Promise<void>;
  /** A new validated config file: clients converge, keys, labels, prices and queues follow. */
  reload(config: GatewayConfig): Promise<void>;
  /** PATCH /config: runtime change of the `client` section. */
  patchClient(patch: ConfigPatch["client"]): ClientSectionValue;
  close(): Promise<void>;
}

export function createRuntime(
  initial: GatewayConfig,
  options: RuntimeOptions,
): Runtime {
  const { logger } = options;
  const secrets = options.secrets ?? processSecretSource();
  const podId = options.podId ?? resolvePodId(process.env);
  let config = initial;
  const getConfig = (): GatewayConfig => config;

  // TOOLGATE_STATE_NAMESPACE: the key prefix in Redis (default `toolgate`), so several gateway
  // fleets (or test runs) can share one Redis without seeing each other.
  const namespace = secrets.env.TOOLGATE_STATE_NAMESPACE || undefined;
  const state = createStateStore({
    redisUrl: configuredRedisUrl(config.state, secrets.env),
    logger,
    secrets,
    namespace,
    podId,
  });
  const telemetry = createTelemetry({
    customLabels: config.client.prometheus_labels,
    logger,
  });
  telemetry.applyConfig(config);
  // A report lives three check intervals (rewritten at every check), as fleet-health.ts
  // advises; it follows the check_interval the pod started with (a reload does not change it).
  const healthTtlMs =
    3 * durationMs(config.mcp.health_monitor_config.check_interval);
  const fleetHealth = createFleetHealth({
    store: state,
    podId,
    logger,
    ttlMs: healthTtlMs,
  });
  const fleet = createFleetSync({
    store: state,
    podId,
    snapshots: createToolSnapshots({ store: state, podId, logger }),
    events: createClusterEvents({ store: state, podId, logger }),
    health: fleetHealth,
    logger,
  });
  const upstream = createUpstreamManager({
    logger,
    secrets,
    recorder: telemetry.mcp,
    snapshotTools: fleet.snapshotTools,
    onTools: fleet.onTools,
    onHealthCheck: fleet.onHealthCheck,
  });
  fleet.attach(upstream);
  const governance = createGovernance(config, secrets);
  // API-created clients carry header values and secrets: sealed at rest when a key is configured.
  const sealer = config.state.encryption_key
    ? createSealer(resolveSecret(config.state.encryption_key, secrets))
    : undefined;
  const runtimeClients = createRuntimeClients({
    store: state,
    podId,
    logger,
    sealer,
  });
  const clients = new ClientService({
    upstream,
    repository: runtimeClients,
    logger,
    initialConfig: config,
    fleetHealth,
  });
  // Code mode reads the running config per call: a reload changes binding level and timeout.
  const codeMode = createCodeMode({
    registry: upstream.registry,
    getConfig,
    recorder: telemetry.mcp,
    logger,
  });
  const chat = createChat({
    getConfig,
    extraTools: codeMode.extraTools,
    registry: upstream.registry,
    governance,
    recorder: telemetry.provider,
    mcpRecorder: telemetry.mcp,
    customLabels: (headers) => telemetry.customLabelValues(headers),
    logger,
    secrets,
  });
  const auth = adminAuth(getConfig, { secrets });

  const offState = upstream.onStateChange((status) => {
    fleetHealth
      .report(healthInput(status))
      .catch((err: unknown) =>
        logger.warn(
          { err, client: status.name },
          "reporting client health to the state store failed",
        ),
      );
  });

  const patchClient = (patch: ConfigPatch["client"]): ClientSectionValue => {
    const given = Object.fromEntries(
      Object.entries(patch).filter(([, v]) => v !== undefined),
    ) as Partial<ClientSectionValue>;
    const client: ClientSectionValue = { ...config.client, ...given };
    config = { ...config, client };
    if (given.prometheus_labels)
      telemetry.setCustomLabels(client.prometheus_labels);
    if (patch.drop_excess_requests !== undefined)
      chat.setDropExcessRequests(patch.drop_excess_requests);
    if (patch.enforce_governance_header !== undefined)
      governance.update(config);
    return client;
  };

  const mcpOptions = {
    registry: upstream.registry,
    governance: () => governance,
    headerFilter: toolHeaderFilter((h) =>
      parseToolHeaders(h, upstream.registry.clientNames()),
    ),
    virtual: options.virtualTools ?? codeMode.virtualTools,
    allowedOrigins: () => config.client.allowed_origins,
    bodyLimit: config.server.body_limit_mcp,
    ...(config.server.session_secret
      ? { sessionSecret: resolveSecret(config.server.session_secret, secrets) }
      : {}),
  };
  const adminLimit = config.server.body_limit_api;
  const plugins: AppPlugin[] = [
    { plugin: telemetry.httpMetricsPlugin },
    { plugin: mcpPlugin, options: mcpOptions },
    { plugin: chat.plugin },
    {
      plugin: clientRoutes,
      options: { service: clients, preHandler: auth, bodyLimit: adminLimit },
    },
    {
      plugin: configRoutes,
      options: { preHandler: auth, bodyLimit: adminLimit, patchClient },
    },
    { plugin: telemetry.metricsRoute({ preHandler: auth }) },
  ];

  return {
    logger,
    podId,
    state,
    telemetry,
    upstream,
    governance,
    chat,
    clients,
    runtimeClients,
    fleetHealth,
    plugins,
    getConfig,
    async start() {
      await fleetHealth.start();
      // Snapshots before the connections start, so a cold pod offers the fleet's tools at once.
      await fleet.start();
      await clients.start();
    },
    async reload(next) {
      // Keys first: if a key's env. reference is unset, nothing of the new config is taken.
      governance.update(next);
      config = next;
      telemetry.applyConfig(next);
      chat.setDropExcessRequests(
        next.config?.drop_excess_requests ?? next.client.drop_excess_requests,
      );
      await clients.setFileConfig(next);
    },
    patchClient,
    async close() {
      offState();
      clients.stop();
      // The fleet sync stops before the connections close, so closing them is not taken for
      // clients being deleted (which would remove their snapshots fleet-wide).
      await Promise.allSettled([
        chat.close(),
        runtimeClients.close(),
        fleetHealth.close(),
        fleet.close(),
      ]);
      await upstream.close();
      await state.close();
    },
  };
}
