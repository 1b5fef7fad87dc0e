/**
 * Fleet-wide list_changed: a pod that sees a client's tools change announces it on
 * `events:tools-changed`, and every pod (itself included, flagged `local`) hands it to its
 * listeners, which send `notifications/tools/list_changed` on their open /mcp SSE streams.
 * The announcing pod usually notifies its own streams from its registry event already; it
 * can skip `local` events to avoid a duplicate (a duplicate is harmless: clients re-list).
 */
import type { Logger } from "pino";

import type { ToolsChangedEvent } from "./keys.js";
import { channels, ToolsChangedEvent as ToolsChangedSchema } from "./keys.js";
import type { StateStore, Unsubscribe } from "./types.js";

export interface ClusterEventsOptions {
  readonly store: StateStore;
  readonly podId: string;
  readonly logger: Logger;
}

export type ToolsChangedListener = (
  event: ToolsChangedEvent & { readonly local: boolean },
) => void;

export interface ClusterEvents {
  start(): Promise<void>;
  /** Tells every pod that `client`'s tools changed. Rejects with TG_ERR_STATE_UNAVAILABLE when the store is down. */
  publishToolsChanged(client: string): Promise<void>;
  onToolsChanged(listener: ToolsChangedListener): () => void;
  close(): Promise<void>;
}

export function createClusterEvents(
  options: ClusterEventsOptions,
): ClusterEvents {
  const { store, podId } = options;
  const logger = options.logger.child({ component: "cluster-events" });
  const listeners = new Set<ToolsChangedListener>();
  let unsubscribe: Unsubscribe | undefined;

  const onMessage = (message: unknown): void => {
    const event = ToolsChangedSchema.safeParse(message);
    if (!event.success) {
      logger.warn(
        { issues: event.error.issues },
        "ignoring a malformed tools-changed event",
      );
      return;
    }
    const delivered = { ...event.data, local: event.data.podId === podId };
    for (const l of [...listeners]) {
      try {
        l(delivered);
      } catch (e) {
        logger.error(
          { err: e, client: event.data.client },
          "tools-changed listener threw",
        );
      }
    }
  };

  return {
    async start() {
      unsubscribe = await store.subscribe(channels.toolsChanged, onMessage);
    },
    async publishToolsChanged(client) {
      await store.publish(channels.toolsChanged, { client, podId });
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await unsubscribe?.().catch((e: unknown) =>
        logger.debug({ err: e }, "unsubscribe failed while closing"),
      );
    },
  };
}
