/**
 * Clients created, edited and deleted through the management API, shared by the fleet. Each
 * is stored at `client:<id>`; a change is announced on `events:clients` and every pod fetches
 * it and calls `onChange` with the full current set (well within a second). A periodic full
 * resync, and one after every reconnect, heal a missed message: the store, not the messages,
 * is the truth.
 */
import type { Logger } from "pino";

import type { ClientConfig } from "../config/schema.js";
import {
  ClientConfig as ClientConfigSchema,
  clientId,
} from "../config/schema.js";
import { channels, ClientsEvent, keys, RuntimeClientRecord } from "./keys.js";
import type { Sealer } from "./sealing.js";
import type { Entry, StateStore, Unsubscribe } from "./types.js";

export const DEFAULT_RESYNC_INTERVAL_MS = 30_000;

export interface RuntimeClientsOptions {
  readonly store: StateStore;
  readonly podId: string;
  readonly logger: Logger;
  /** Full resync period (default 30 s). */
  readonly resyncIntervalMs?: number;
  /** From `state.encryption_key`: store configs sealed, since they may hold header values and OAuth secrets. */
  readonly sealer?: Sealer | undefined;
}

export type ClientsListener = (clients: readonly ClientConfig[]) => void;

export interface RuntimeClients {
  /** Loads the set, follows changes and starts the periodic resync; listeners get the initial set. */
  start(): Promise<void>;
  /** The current set (local, no store round trip), sorted by id. */
  list(): readonly ClientConfig[];
  get(id: string): ClientConfig | undefined;
  /** Creates or replaces the client with this id fleet-wide. */
  upsert(config: ClientConfig): Promise<void>;
  /** Deletes it fleet-wide; false when it did not exist. */
  remove(id: string): Promise<boolean>;
  /** Called with the full set whenever it changes. */
  onChange(listener: ClientsListener): () => void;
  resync(): Promise<void>;
  close(): Promise<void>;
}

interface Cached {
  readonly config: ClientConfig;
  readonly rev: number;
}

export function createRuntimeClients(
  options: RuntimeClientsOptions,
): RuntimeClients {
  const { store, podId } = options;
  const logger = options.logger.child({ component: "runtime-clients" });
  const cache = new Map<string, Cached>();
  const listeners = new Set<ClientsListener>();
  let unsubscribe: Unsubscribe | undefined;
  let offReconnect: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const list = (): ClientConfig[] =>
    [...cache.keys()].sort().map((id) => (cache.get(id) as Cached).config);

  const emit = (): void => {
    const clients = list();
    for (const l of [...listeners]) {
      try {
        l(clients);
      } catch (e) {
        logger.error({ err: e }, "runtime clients listener threw");
      }
    }
  };

  const unseal = (key: string, record: RuntimeClientRecord): ClientConfig => {
    if ("config" in record) return record.config;
    if (!options.sealer)
      throw new Error(
        "the record is sealed but no state.encryption_key is configured on this pod",
      );
    return ClientConfigSchema.parse(options.sealer.open(record.sealed, key));
  };

  const record = (entry: Entry): Cached | undefined => {
    try {
      return {
        config: unseal(entry.key, RuntimeClientRecord.parse(entry.value)),
        rev: entry.rev,
      };
    } catch (e) {
      // One bad record must not keep every other client from converging.
      logger.warn(
        { key: entry.key, err: e },
        "skipping an invalid runtime client record",
      );
      return undefined;
    }
  };

  const fetch = async (id: string): Promise<void> => {
    const entry = await store.get(keys.runtimeClient(id));
    const next = entry && record(entry);
    const current = cache.get(id);
    if (!next) {
      if (cache.delete(id)) emit();
      return;
    }
    if (current && current.rev >= next.rev) return;
    cache.set(id, next);
    emit();
  };

  const onMessage = (message: unknown): void => {
    const event = ClientsEvent.safeParse(message);
    if (!event.success) {
      logger.warn(
        { issues: event.error.issues },
        "ignoring a malformed clients event",
      );
      return;
    }
    fetch(event.data.id).catch((e: unknown) =>
      logger.warn(
        { err: e, id: event.data.id },
        "could not fetch a changed client; the next resync heals it",
      ),
    );
  };

  const resync = async (): Promise<void> => {
    const next = new Map<string, Cached>();
    for (const entry of await store.list(keys.runtimeClientPrefix)) {
      const r = record(entry);
      if (r) next.set(entry.key.slice(keys.runtimeClientPrefix.length), r);
    }
    const same =
      next.size === cache.size &&
      [...next].every(([id, r]) => cache.get(id)?.rev === r.rev);
    if (same) return;
    cache.clear();
    for (const [id, r] of next) cache.set(id, r);
    emit();
  };

  const resyncLogged = (): void => {
    resync().catch((e: unknown) =>
      logger.warn(
        { err: e },
        "runtime clients resync failed; retrying at the next interval",
      ),
    );
  };

  return {
    async start() {
      unsubscribe = await store.subscribe(channels.clients, onMessage);
      offReconnect = store.onReconnect(resyncLogged);
      timer = setInterval(
        resyncLogged,
        options.resyncIntervalMs ?? DEFAULT_RESYNC_INTERVAL_MS,
      );
      timer.unref();
      try {
        await resync();
      } catch (e) {
        logger.warn(
          { err: e },
          "runtime clients not loaded (state store unavailable); loading them when it is back",
        );
      }
      if (cache.size === 0) emit(); // resync emits only on a change; listeners still get the initial (empty) set
    },
    list,
    get: (id) => cache.get(id)?.config,
    async upsert(config) {
      const id = clientId(config);
      const meta = { updatedAt: new Date().toISOString(), podId };
      const key = keys.runtimeClient(id);
      const value: RuntimeClientRecord = options.sealer
        ? { sealed: options.sealer.seal(config, key), ...meta }
        : { config, ...meta };
      const rev = await store.set(key, value);
      if ((cache.get(id)?.rev ?? 0) < rev) {
        cache.set(id, { config, rev });
        emit();
      }
      await store.publish(channels.clients, { op: "upsert", id, podId });
    },
    async remove(id) {
      const existed = await store.delete(keys.runtimeClient(id));
      if (cache.delete(id)) emit();
      await store.publish(channels.clients, { op: "delete", id, podId });
      return existed;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    resync,
    async close() {
      clearInterval(timer);
      offReconnect?.();
      listeners.clear();
      await unsubscribe?.().catch((e: unknown) =>
        logger.debug({ err: e }, "unsubscribe failed while closing"),
      );
    },
  };
}
