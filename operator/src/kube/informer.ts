/**
 * List, then watch from the list's `resourceVersion`, keeping a cache (client-go's reflector,
 * kubernetes-fluent-client's `watch.ts`). A dropped stream resumes from the last version
 * seen (events and bookmarks both advance it); `410 Gone` (the version was compacted away)
 * relists and emits the difference; errors back off with jitter. The client's watch aborts
 * a stream that stays silent past its inactivity timeout, which catches half-open streams.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import { Watch } from "@kubernetes/client-node";

import {
  backoffDelay,
  type BackoffOptions,
  DEFAULT_BACKOFF,
} from "./backoff.js";

export interface KubeObject {
  metadata?:
    | {
        name?: string | undefined;
        namespace?: string | undefined;
        resourceVersion?: string | undefined;
      }
    | undefined;
}

export type EventType = "add" | "update" | "delete";

export interface ListResult<T> {
  items: T[];
  resourceVersion: string;
}

export interface InformerOptions<T extends KubeObject> {
  /** For logs and metrics, e.g. `mcpclients`. */
  resource: string;
  /** API path of the collection, e.g. `/apis/toolgate.dev/v1alpha1/namespaces/ns/mcpclients`. */
  path: string;
  list: () => Promise<ListResult<T>>;
  onEvent: (type: EventType, obj: T, old?: T) => void;
  onRestart?: (reason: "expired" | "error" | "closed", error?: unknown) => void;
  backoff?: BackoffOptions;
  random?: () => number;
}

export function objectName(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

function statusCode(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const e = err as { statusCode?: unknown; code?: unknown };
  if (typeof e.statusCode === "number") return e.statusCode;
  return typeof e.code === "number" ? e.code : undefined;
}

export class Informer<T extends KubeObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion = "";
  private attempt = 0;
  private stopped = true;
  private abort: AbortController | undefined;
  private timer: NodeJS.Timeout | undefined;
  private syncedResolve!: () => void;
  /** Resolves after the first successful list. */
  readonly synced: Promise<void> = new Promise(
    (resolve) => (this.syncedResolve = resolve),
  );
  private isSynced = false;

  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: InformerOptions<T>,
  ) {}

  get hasSynced(): boolean {
    return this.isSynced;
  }

  get lastResourceVersion(): string {
    return this.resourceVersion;
  }

  items(): T[] {
    return [...this.cache.values()];
  }

  get(namespace: string, name: string): T | undefined {
    return this.cache.get(`${namespace}/${name}`);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0, () => this.relist());
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort?.abort();
    this.abort = undefined;
  }

  private schedule(ms: number, fn: () => Promise<void>): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void fn(), ms);
  }

  private delay(): number {
    return backoffDelay(
      this.attempt++,
      this.opts.backoff ?? DEFAULT_BACKOFF,
      this.opts.random,
    );
  }

  private async relist(): Promise<void> {
    let listed: ListResult<T>;
    try {
      listed = await this.opts.list();
    } catch (error) {
      this.opts.onRestart?.("error", error);
      this.schedule(this.delay(), () => this.relist());
      return;
    }
    if (this.stopped) return;
    this.replace(listed.items);
    this.resourceVersion = listed.resourceVersion;
    if (!this.isSynced) {
      this.isSynced = true;
      this.syncedResolve();
    }
    await this.watch();
  }

  /** Replaces the cache with a fresh list, emitting the difference as events. */
  private replace(items: T[]): void {
    const seen = new Set<string>();
    for (const obj of items) {
      const key = objectName(obj);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, obj);
      if (!old) this.opts.onEvent("add", obj);
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion)
        this.opts.onEvent("update", obj, old);
    }
    for (const [key, old] of this.cache) {
      if (seen.has(key)) continue;
      this.cache.delete(key);
      this.opts.onEvent("delete", old);
    }
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    let expired = false;
    const controller = new Watch(this.kc);
    // Like client-go: a randomised server-side timeout spreads reconnects of many watchers.
    const timeoutSeconds =
      300 + Math.floor((this.opts.random ?? Math.random)() * 300);
    const onEvent = (phase: string, obj: T & { code?: number }): void => {
      if (phase === "ERROR") {
        if (obj.code === 410) expired = true;
        this.abort?.abort();
        return;
      }
      const rv = obj.metadata?.resourceVersion;
      if (rv) this.resourceVersion = rv;
      this.attempt = 0;
      if (phase !== "BOOKMARK") this.apply(phase, obj);
    };
    const onDone = (err: unknown): void => {
      if (this.stopped) return;
      if (expired || statusCode(err) === 410) {
        this.opts.onRestart?.("expired", err);
        this.schedule(this.delay(), () => this.relist());
      } else if (err && !isTimeout(err)) {
        this.opts.onRestart?.("error", err);
        this.schedule(this.delay(), () => this.watch());
      } else {
        this.opts.onRestart?.("closed");
        this.schedule(0, () => this.watch());
      }
    };
    this.abort = await controller.watch(
      this.opts.path,
      {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
      },
      onEvent,
      onDone,
    );
    if (this.stopped) this.abort.abort();
  }

  private apply(phase: string, obj: T): void {
    const key = objectName(obj);
    const old = this.cache.get(key);
    if (phase === "DELETED") {
      this.cache.delete(key);
      this.opts.onEvent("delete", old ?? obj);
    } else if (phase === "ADDED" || phase === "MODIFIED") {
      this.cache.set(key, obj);
      if (old) this.opts.onEvent("update", obj, old);
      else this.opts.onEvent("add", obj);
    }
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === "TimeoutError";
}
