/**
 * Tool-list snapshots shared by the fleet: each client's tool list with a content hash, so
 * a pod that starts serves `tools/list` from them before its own connections are up.
 *
 * Reads never touch the store: every pod keeps all snapshots in a local map, filled at
 * `start()` and kept current by `events:snapshots` messages (a message carries the hash, so
 * a pod fetches only what it does not already have). Publishing the list a pod already knows
 * costs nothing either; a write happens only when the hash changed. After a reconnect the
 * map is re-read in full, since messages sent during the outage are lost, and lists this pod
 * failed to publish during the outage are published then.
 */
import type { Logger } from "pino";

import { contentHash } from "./canonical-hash.js";
import type { SnapshotTool } from "./keys.js";
import { channels, keys, SnapshotEvent, ToolSnapshot } from "./keys.js";
import type { StateStore, Unsubscribe } from "./types.js";

export interface ToolSnapshotsOptions {
  readonly store: StateStore;
  readonly podId: string;
  readonly logger: Logger;
}

export type SnapshotListener = (
  client: string,
  snapshot: ToolSnapshot | undefined,
) => void;

export interface ToolSnapshots {
  /** Loads every snapshot and follows changes. A store outage is logged, not thrown: the pod starts anyway. */
  start(): Promise<void>;
  /** Records the tool list this pod sees for a client; writes and announces it only when its hash changed. True when written. */
  publish(client: string, tools: readonly SnapshotTool[]): Promise<boolean>;
  /** Forgets a client's snapshot fleet-wide (the client was deleted). */
  remove(client: string): Promise<void>;
  /** Local reads: no store round trip. */
  get(client: string): ToolSnapshot | undefined;
  all(): readonly ToolSnapshot[];
  /** Called when a snapshot appears, changes or goes (undefined), from this pod or another. */
  onChange(listener: SnapshotListener): () => void;
  /** Re-reads all snapshots from the store. */
  resync(): Promise<void>;
  close(): Promise<void>;
}

export function toolsHash(tools: readonly SnapshotTool[]): string {
  return contentHash(tools);
}

export function createToolSnapshots(
  options: ToolSnapshotsOptions,
): ToolSnapshots {
  const { store, podId } = options;
  const logger = options.logger.child({ component: "tool-snapshots" });
  const cache = new Map<string, ToolSnapshot>();
  const listeners = new Set<SnapshotListener>();
  /** Lists whose publish failed (store unavailable), retried after a reconnect; the latest per client wins. */
  const pending = new Map<string, readonly SnapshotTool[]>();
  let unsubscribe: Unsubscribe | undefined;
  let offReconnect: (() => void) | undefined;

  const emit = (client: string, snapshot: ToolSnapshot | undefined): void => {
    for (const l of [...listeners]) {
      try {
        l(client, snapshot);
      } catch (e) {
        logger.error({ err: e, client }, "snapshot listener threw");
      }
    }
  };

  const accept = (snapshot: ToolSnapshot): void => {
    if (cache.get(snapshot.client)?.hash === snapshot.hash) return;
    cache.set(snapshot.client, snapshot);
    emit(snapshot.client, snapshot);
  };

  const drop = (client: string): void => {
    if (cache.delete(client)) emit(client, undefined);
  };

  const fetch = async (client: string): Promise<void> => {
    const entry = await store.get(keys.snapshot(client), ToolSnapshot);
    if (entry) accept(entry.value);
    else drop(client);
  };

  const onMessage = (message: unknown): void => {
    const event = SnapshotEvent.safeParse(message);
    if (!event.success) {
      logger.warn(
        { issues: event.error.issues },
        "ignoring a malformed snapshot event",
      );
      return;
    }
    const { client, hash, removed } = event.data;
    if (removed) return drop(client);
    if (cache.get(client)?.hash === hash) return;
    fetch(client).catch((e: unknown) =>
      logger.warn(
        { err: e, client },
        "could not fetch a changed snapshot; the next resync heals it",
      ),
    );
  };

  const resync = async (): Promise<void> => {
    const entries = await store.list(keys.snapshotPrefix);
    const seen = new Set<string>();
    for (const e of entries) {
      const parsed = ToolSnapshot.safeParse(e.value);
      if (!parsed.success) {
        logger.warn({ key: e.key }, "skipping a malformed tool snapshot");
        continue;
      }
      seen.add(parsed.data.client);
      accept(parsed.data);
    }
    for (const client of [...cache.keys()]) if (!seen.has(client)) drop(client);
  };

  const write = async (
    client: string,
    tools: readonly SnapshotTool[],
  ): Promise<boolean> => {
    const hash = toolsHash(tools);
    if (cache.get(client)?.hash === hash) return false;
    const snapshot: ToolSnapshot = {
      client,
      hash,
      tools: [...tools],
      updatedAt: new Date().toISOString(),
      podId,
    };
    await store.set(keys.snapshot(client), snapshot);
    accept(snapshot);
    await store.publish(channels.snapshots, { client, hash, podId });
    return true;
  };

  /** This pod's unpublished lists first (they are newer than what the store holds), then the full re-read. */
  const afterReconnect = async (): Promise<void> => {
    for (const [client, tools] of [...pending]) {
      pending.delete(client);
      try {
        await write(client, tools);
      } catch (e) {
        if (!pending.has(client)) pending.set(client, tools);
        logger.warn(
          { err: e, client },
          "publishing a tool snapshot after the reconnect failed; retrying at the next one",
        );
      }
    }
    await resync();
  };

  const resyncLogged = (): void => {
    afterReconnect().catch((e: unknown) =>
      logger.warn({ err: e }, "snapshot resync failed"),
    );
  };

  return {
    async start() {
      unsubscribe = await store.subscribe(channels.snapshots, onMessage);
      offReconnect = store.onReconnect(resyncLogged);
      try {
        await resync();
      } catch (e) {
        logger.warn(
          { err: e },
          "tool snapshots not loaded (state store unavailable); loading them when it is back",
        );
      }
    },
    async publish(client, tools) {
      pending.delete(client);
      try {
        return await write(client, tools);
      } catch (e) {
        pending.set(client, tools);
        throw e;
      }
    },
    async remove(client) {
      pending.delete(client);
      await store.delete(keys.snapshot(client));
      drop(client);
      await store.publish(channels.snapshots, {
        client,
        hash: "",
        podId,
        removed: true,
      });
    },
    get: (client) => cache.get(client),
    all: () => [...cache.values()],
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    resync,
    async close() {
      offReconnect?.();
      listeners.clear();
      await unsubscribe?.().catch((e: unknown) =>
        logger.debug({ err: e }, "unsubscribe failed while closing"),
      );
    },
  };
}
