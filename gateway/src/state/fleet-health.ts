/**
 * Fleet-wide client health. Each pod writes its own view of each client to
 * `health:<client>:<podId>` with a TTL (a pod that dies simply stops appearing); the fleet view
 * for GET /api/mcp/clients reads them all. When a client turns failing on one pod, that pod
 * announces it on `events:health` and every other pod's `onRecheck` listeners run, so they
 * check that client now instead of at their next interval.
 *
 * Callers report on every state change (and may on every check); the service itself rewrites
 * its latest reports every third of the TTL, so a live pod's reports never lapse between
 * changes and a dead pod's vanish within one TTL.
 */
import type { Logger } from "pino";

import type { HealthState } from "./keys.js";
import { channels, ClientHealthReport, HealthEvent, keys } from "./keys.js";
import type { StateStore, Unsubscribe } from "./types.js";

/** Three missed writes at the default 10 s health interval and a pod's reports are gone. */
export const DEFAULT_HEALTH_TTL_MS = 30_000;

export interface FleetHealthOptions {
  readonly store: StateStore;
  readonly podId: string;
  readonly logger: Logger;
  /** Lifetime of a report; set it to about three health-check intervals. */
  readonly ttlMs?: number;
}

export interface ClientHealthInput {
  readonly client: string;
  readonly state: HealthState;
  readonly consecutiveFailures: number;
  readonly tools: readonly string[];
  /** ISO time of the last state change. */
  readonly since: string;
  readonly lastError?: string | undefined;
  /** ISO time of the check; default now. */
  readonly lastCheck?: string | undefined;
}

export type FleetState =
  "connected" | "degraded" | "connecting" | "down" | "unknown";

export interface ClientFleetHealth {
  readonly client: string;
  /** One report per pod that currently reports the client, sorted by pod id. */
  readonly pods: readonly ClientHealthReport[];
  readonly summary: {
    /** connected: every pod; degraded: some; connecting: none yet, none failing; down: none, some failing; unknown: no reports. */
    readonly state: FleetState;
    readonly pods: number;
    readonly connected: number;
    readonly failing: number;
    readonly toolCount: number;
    readonly lastError?: string;
  };
}

export type RecheckListener = (client: string, fromPod: string) => void;

export interface FleetHealth {
  start(): Promise<void>;
  /** Writes this pod's view of a client; on a turn to failing, asks the other pods to re-check it. */
  report(input: ClientHealthInput): Promise<void>;
  /** Removes this pod's report of a client (the client was removed here). */
  forget(client: string): Promise<void>;
  /** Every client any pod reports, sorted by name. */
  fleet(): Promise<readonly ClientFleetHealth[]>;
  client(client: string): Promise<ClientFleetHealth>;
  /** Another pod saw `client` fail: check it now. Never called for this pod's own events. */
  onRecheck(listener: RecheckListener): () => void;
  close(): Promise<void>;
}

const failing = (s: HealthState): boolean =>
  s === "error" || s === "disconnected";

export function summarize(
  client: string,
  reports: readonly ClientHealthReport[],
): ClientFleetHealth {
  const pods = [...reports].sort((x, y) =>
    x.pod < y.pod ? -1 : x.pod > y.pod ? 1 : 0,
  );
  const connected = pods.filter((p) => p.state === "connected").length;
  const failed = pods.filter((p) => failing(p.state));
  let state: FleetState = "degraded";
  if (pods.length === 0) state = "unknown";
  else if (connected === pods.length) state = "connected";
  else if (connected === 0) state = failed.length > 0 ? "down" : "connecting";
  const lastError = failed
    .filter((p) => p.lastError)
    .sort((x, y) => (x.lastCheck < y.lastCheck ? 1 : -1))[0]?.lastError;
  const summary = {
    state,
    pods: pods.length,
    connected,
    failing: failed.length,
    toolCount: Math.max(0, ...pods.map((p) => p.toolCount)),
    ...(lastError === undefined ? {} : { lastError }),
  };
  return { client, pods, summary };
}

function group(
  reports: readonly ClientHealthReport[],
): Map<string, ClientHealthReport[]> {
  const byClient = new Map<string, ClientHealthReport[]>();
  for (const r of reports) {
    const list = byClient.get(r.client) ?? [];
    list.push(r);
    byClient.set(r.client, list);
  }
  return byClient;
}

export function createFleetHealth(options: FleetHealthOptions): FleetHealth {
  const { store, podId } = options;
  const ttlMs = options.ttlMs ?? DEFAULT_HEALTH_TTL_MS;
  const logger = options.logger.child({ component: "fleet-health" });
  const lastState = new Map<string, HealthState>();
  const listeners = new Set<RecheckListener>();
  const latest = new Map<string, ClientHealthReport>();
  let unsubscribe: Unsubscribe | undefined;
  let timer: NodeJS.Timeout | undefined;

  const write = (report: ClientHealthReport): Promise<number> =>
    store.set(keys.health(report.client, podId), report, { ttlMs });

  const refresh = (): void => {
    for (const report of latest.values()) {
      write({ ...report, updatedAt: new Date().toISOString() }).catch(
        (e: unknown) =>
          logger.debug(
            { err: e, client: report.client },
            "health refresh failed; retrying at the next refresh",
          ),
      );
    }
  };

  const onMessage = (message: unknown): void => {
    const event = HealthEvent.safeParse(message);
    if (!event.success || event.data.podId === podId) return;
    for (const l of [...listeners]) {
      try {
        l(event.data.client, event.data.podId);
      } catch (e) {
        logger.error(
          { err: e, client: event.data.client },
          "recheck listener threw",
        );
      }
    }
  };

  const readAll = async (prefix: string): Promise<ClientHealthReport[]> => {
    const out: ClientHealthReport[] = [];
    for (const e of await store.list(prefix)) {
      const parsed = ClientHealthReport.safeParse(e.value);
      if (parsed.success) out.push(parsed.data);
      else logger.warn({ key: e.key }, "skipping a malformed health report");
    }
    return out;
  };

  return {
    async start() {
      unsubscribe = await store.subscribe(channels.health, onMessage);
      timer = setInterval(refresh, Math.max(1, Math.floor(ttlMs / 3)));
      timer.unref();
    },
    async report(input) {
      const now = new Date().toISOString();
      const report: ClientHealthReport = {
        client: input.client,
        pod: podId,
        state: input.state,
        consecutiveFailures: input.consecutiveFailures,
        lastCheck: input.lastCheck ?? now,
        since: input.since,
        toolCount: input.tools.length,
        tools: [...input.tools],
        ...(input.lastError === undefined
          ? {}
          : { lastError: input.lastError }),
        updatedAt: now,
      };
      const previous = lastState.get(input.client);
      lastState.set(input.client, input.state);
      latest.set(input.client, report);
      await write(report);
      // Only the turn to failing is news; a client that stays down is not re-announced every check.
      if (
        failing(input.state) &&
        (previous === undefined || !failing(previous))
      ) {
        await store.publish(channels.health, {
          client: input.client,
          podId,
          state: input.state,
          ...(input.lastError === undefined ? {} : { error: input.lastError }),
        });
      }
    },
    async forget(client) {
      lastState.delete(client);
      latest.delete(client);
      await store.delete(keys.health(client, podId));
    },
    async fleet() {
      const byClient = group(await readAll(keys.healthPrefix));
      return [...byClient.keys()]
        .sort()
        .map((c) => summarize(c, byClient.get(c) ?? []));
    },
    async client(client) {
      return summarize(client, await readAll(keys.healthOfClient(client)));
    },
    onRecheck(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(timer);
      latest.clear();
      listeners.clear();
      await unsubscribe?.().catch((e: unknown) =>
        logger.debug({ err: e }, "unsubscribe failed while closing"),
      );
    },
  };
}
