/**
 * The glue between this pod's upstream connections and the fleet's shared state:
 *
 * - Tool snapshots: every connect and re-listing publishes the server's full tool list
 *   (`publish` writes only when the hash changed). While a connection is in its first
 *   `connecting`, the registry offers the snapshot's tools and a call waits for the connect
 *   (upstream/manager.ts); after that first connect ends, either way, local truth wins.
 * - list_changed: a re-listing caused by the upstream's own list_changed is announced on
 *   `events:tools-changed`; the other pods re-list that client from their own connection, so
 *   their registry (and with it their /mcp SSE streams) changes too. A re-listing caused by
 *   the fleet is not announced again, so an announcement never echoes.
 * - Health: every counted check is reported (state, failures, last check). A scheduled check
 *   that fails is announced on `events:health` even while the client is still connected
 *   (the turn to disconnected is announced by the fleet-health service itself), and every
 *   other pod then runs a counted check of that client at once. So the fleet counts failures
 *   at the pace of its fastest-checking pod and a dead upstream is reported by every pod
 *   within one check interval. On-demand checks are never announced: no echo, no storm.
 *
 * Nothing here runs on the tools/list or tools/call path: snapshots are read from the local
 * cache (kept current by pub/sub) and only when a connection's offer is rebuilt.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";

import type { RegistryChange } from "../registry/types.js";
import type { ClusterEvents } from "../state/events.js";
import type { ClientHealthInput, FleetHealth } from "../state/fleet-health.js";
import { channels } from "../state/keys.js";
import type { ToolSnapshots } from "../state/tool-snapshots.js";
import type { StateStore } from "../state/types.js";
import { invalidToolReason } from "../upstream/discovery.js";
import type {
  ClientStatus,
  HealthCheck,
  ToolsOrigin,
} from "../upstream/types.js";

/** What the sync needs of the upstream manager. */
export interface FleetUpstreams {
  idOf(name: string): string | undefined;
  checkNow(id: string): Promise<void>;
  refreshTools(id: string): void;
  snapshotChanged(name: string): void;
  readonly registry: {
    onChange(listener: (change: RegistryChange) => void): () => void;
  };
}

export interface FleetSyncOptions {
  readonly store: StateStore;
  readonly podId: string;
  readonly snapshots: ToolSnapshots;
  readonly events: ClusterEvents;
  readonly health: FleetHealth;
  readonly logger: Logger;
}

export interface FleetSync {
  /** For the upstream manager's options (`snapshotTools`): a local read, validated tools only. */
  readonly snapshotTools: (clientName: string) => readonly Tool[] | undefined;
  /** For the upstream manager's options (`onTools`). */
  readonly onTools: (
    clientName: string,
    tools: readonly Tool[],
    origin: ToolsOrigin,
  ) => void;
  /** For the upstream manager's options (`onHealthCheck`). */
  readonly onHealthCheck: (status: ClientStatus, check: HealthCheck) => void;
  /** Follows the fleet's events for this manager; call once, before `start`. */
  attach(upstream: FleetUpstreams): void;
  /** Loads the snapshots and subscribes (before the connections start, so a cold pod has them). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** This pod's view of a client as the fleet-health service stores it. */
export function healthInput(status: ClientStatus): ClientHealthInput {
  return {
    client: status.name,
    state: status.state,
    consecutiveFailures: status.consecutiveFailures,
    tools: status.tools,
    since: status.since,
    lastError: status.lastError,
  };
}

function validTools(tools: readonly unknown[]): readonly Tool[] {
  return tools.filter((t) => invalidToolReason(t) === undefined) as Tool[];
}

export function createFleetSync(options: FleetSyncOptions): FleetSync {
  const { store, podId, snapshots, events, health } = options;
  const logger = options.logger.child({ component: "fleet-sync" });
  /** Validated snapshot tools per client, recomputed only when the hash changes. */
  const valid = new Map<
    string,
    { readonly hash: string; readonly tools: readonly Tool[] }
  >();
  const offs: (() => void)[] = [];

  const announce = async (
    clientName: string,
    tools: readonly Tool[],
    origin: ToolsOrigin,
  ): Promise<void> => {
    try {
      await snapshots.publish(clientName, tools);
    } catch (err) {
      // The snapshot service retries it after the store is back.
      logger.warn(
        { err, client: clientName },
        "publishing a tool snapshot failed",
      );
    }
    if (origin === "upstream") await events.publishToolsChanged(clientName);
  };

  return {
    snapshotTools(clientName) {
      const snapshot = snapshots.get(clientName);
      if (!snapshot) return undefined;
      const cached = valid.get(clientName);
      if (cached?.hash === snapshot.hash) return cached.tools;
      const tools = validTools(snapshot.tools);
      valid.set(clientName, { hash: snapshot.hash, tools });
      return tools;
    },
    onTools(clientName, tools, origin) {
      announce(clientName, tools, origin).catch((err: unknown) =>
        logger.warn(
          { err, client: clientName },
          "announcing a tool-list change to the fleet failed; other pods see it at their next re-listing",
        ),
      );
    },
    onHealthCheck(status, check) {
      health
        .report(healthInput(status))
        .catch((err: unknown) =>
          logger.debug(
            { err, client: status.name },
            "reporting a health check failed",
          ),
        );
      if (
        check.failure === undefined ||
        !check.scheduled ||
        status.state !== "connected"
      )
        return;
      store
        .publish(channels.health, {
          client: status.name,
          podId,
          state: status.state,
          error: check.failure,
        })
        .catch((err: unknown) =>
          logger.debug(
            { err, client: status.name },
            "asking the fleet to re-check a client failed",
          ),
        );
    },
    attach(upstream) {
      offs.push(
        snapshots.onChange((clientName, snapshot) => {
          if (!snapshot) valid.delete(clientName);
          upstream.snapshotChanged(clientName);
        }),
        events.onToolsChanged((event) => {
          if (event.local) return;
          const id = upstream.idOf(event.client);
          if (id !== undefined) upstream.refreshTools(id);
        }),
        health.onRecheck((clientName, fromPod) => {
          const id = upstream.idOf(clientName);
          if (id === undefined) return;
          logger.info(
            { client: clientName, fromPod },
            "another pod saw this client fail; checking it now",
          );
          upstream
            .checkNow(id)
            .catch((err: unknown) =>
              logger.warn(
                { err, client: clientName },
                "the on-demand health check failed to run",
              ),
            );
        }),
        upstream.registry.onChange((change) => {
          // The client left this pod's config (API delete, or a reload dropped it): its
          // report goes, and so does its snapshot, which is "deleted with the client".
          if (change.kind !== "client-removed") return;
          health
            .forget(change.client)
            .catch((err: unknown) =>
              logger.debug(
                { err, client: change.client },
                "forgetting a client's health failed",
              ),
            );
          snapshots
            .remove(change.client)
            .catch((err: unknown) =>
              logger.debug(
                { err, client: change.client },
                "removing a client's snapshot failed",
              ),
            );
        }),
      );
    },
    async start() {
      await snapshots.start();
      await events.start();
    },
    async close() {
      for (const off of offs.splice(0)) off();
      await Promise.allSettled([snapshots.close(), events.close()]);
    },
  };
}
