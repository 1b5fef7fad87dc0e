/**
 * The set of upstream connections, converged on the configuration by `apply`, and the
 * aggregated registry they feed.
 *
 * A client is identified by its id (`id`, or its name). On apply, a client whose
 * connection-relevant fields (see `connectionKey`) are unchanged keeps its connection
 * untouched; only tools_to_execute, tools_to_auto_execute, is_ping_available or
 * is_code_mode_client changed means an in-place update; anything else rebuilds it. Applies
 * run one after another, never interleaved.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

import type { ClientConfig, GatewayConfig } from "../config/schema.js";
import { clientId, durationMs } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import { AggregatedToolRegistry } from "../registry/tool-registry.js";
import type { CallOptions, ToolEntry } from "../registry/types.js";
import { systemClock } from "./clock.js";
import type { ConnectionSettings } from "./connection.js";
import { Connection, toolErrorResult } from "./connection.js";
import type {
  ClientState,
  ClientStatus,
  UpstreamManager,
  UpstreamOptions,
} from "./types.js";

const DEFAULT_SETTINGS: ConnectionSettings = {
  checkIntervalMs: 10_000,
  checkTimeoutMs: 5000,
  maxConsecutiveFailures: 5,
  toolExecutionTimeoutMs: 30_000,
};

/** The fields whose change needs a new connection. Header order does not matter. */
export function connectionKey(c: ClientConfig): string {
  const headers = c.headers
    ? Object.fromEntries(
        Object.entries(c.headers).sort(([a], [b]) => (a < b ? -1 : 1)),
      )
    : undefined;
  return JSON.stringify([
    c.name,
    c.connection_type,
    c.connection_string,
    c.stdio_config,
    c.auth_type,
    headers,
    c.oauth_config,
  ]);
}

export function settingsOf(config: GatewayConfig): ConnectionSettings {
  const h = config.mcp.health_monitor_config;
  return {
    checkIntervalMs: durationMs(h.check_interval),
    checkTimeoutMs: durationMs(h.check_timeout),
    maxConsecutiveFailures: h.max_consecutive_failures,
    toolExecutionTimeoutMs: durationMs(
      config.mcp.tool_manager_config.tool_execution_timeout,
    ),
  };
}

type StateListener = (
  status: ClientStatus,
  previous: ClientState | undefined,
) => void;

class Upstreams implements UpstreamManager {
  readonly registry: AggregatedToolRegistry;
  readonly #options: UpstreamOptions;
  readonly #connections = new Map<string, Connection>();
  readonly #keys = new Map<string, string>();
  readonly #listeners = new Set<StateListener>();
  #settings: ConnectionSettings = DEFAULT_SETTINGS;
  #applying: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: UpstreamOptions) {
    this.#options = options;
    this.registry = new AggregatedToolRegistry((entry, args, opts) =>
      this.#invoke(entry, args, opts),
    );
  }

  apply(
    config: GatewayConfig,
    extraClients: readonly ClientConfig[] = [],
  ): Promise<void> {
    const run = this.#applying.then(() => this.#converge(config, extraClients));
    this.#applying = run.catch(() => undefined);
    return run;
  }

  list(): readonly ClientStatus[] {
    return [...this.#connections.values()].map((c) => c.status());
  }

  get(id: string): ClientStatus | undefined {
    return this.#connections.get(id)?.status();
  }

  /** The live connection of a client (diagnostics, tests, the bench). */
  connection(id: string): Connection | undefined {
    return this.#connections.get(id);
  }

  reconnect(id: string): Promise<ClientStatus> {
    const conn = this.#connections.get(id);
    if (!conn) return Promise.reject(notFound(id));
    return conn.reconnect();
  }

  waitConnected(id: string, timeoutMs: number): Promise<void> {
    const conn = this.#connections.get(id);
    if (!conn) return Promise.reject(notFound(id));
    if (conn.state === "connected") return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = new AbortController();
      const off = this.onStateChange((status) => {
        if (status.id !== id || status.state !== "connected") return;
        off();
        timer.abort();
        resolve();
      });
      (this.#options.clock ?? systemClock).sleep(timeoutMs, timer.signal).then(
        () => {
          off();
          const now = this.get(id);
          const detail = now
            ? `it is ${now.state}${now.lastError ? ` (${now.lastError})` : ""}`
            : "it was removed";
          reject(
            new GatewayError(
              "TG_ERR_TIMEOUT",
              `MCP client "${id}" did not connect within ${timeoutMs} ms; ${detail}`,
            ),
          );
        },
        () => undefined,
      );
    });
  }

  /** Runs a counted health check of the client now (another pod saw it fail). Unknown ids are ignored. */
  async checkNow(id: string): Promise<void> {
    await this.#connections.get(id)?.checkNow();
  }

  /** Re-lists the client's tools from its own connection (another pod saw them change). */
  refreshTools(id: string): void {
    this.#connections.get(id)?.refreshTools();
  }

  /** The fleet's snapshot of `name` changed: a connection still awaiting its first connect offers it. */
  snapshotChanged(name: string): void {
    for (const c of this.#connections.values())
      if (c.name === name) c.snapshotChanged();
  }

  /** The id of the client named `name` (fleet events name clients, the manager keys them by id). */
  idOf(name: string): string | undefined {
    for (const c of this.#connections.values())
      if (c.name === name) return c.id;
    return undefined;
  }

  onStateChange(listener: StateListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#applying;
    const all = [...this.#connections.values()];
    this.#connections.clear();
    this.#keys.clear();
    await Promise.all(all.map((c) => this.#remove(c)));
  }

  async #converge(
    config: GatewayConfig,
    extra: readonly ClientConfig[],
  ): Promise<void> {
    if (this.#closed) return;
    this.#settings = settingsOf(config);
    const desired = this.#desired(config, extra);
    const closing: Promise<void>[] = [];
    for (const [id, conn] of this.#connections) {
      const next = desired.get(id);
      if (next && connectionKey(next) === this.#keys.get(id)) continue;
      this.#connections.delete(id);
      this.#keys.delete(id);
      closing.push(this.#remove(conn, next?.name));
    }
    await Promise.all(closing);
    for (const [id, cfg] of desired) {
      const existing = this.#connections.get(id);
      if (existing) {
        existing.update(cfg);
        continue;
      }
      const conn = this.#create(cfg);
      this.#connections.set(id, conn);
      this.#keys.set(id, connectionKey(cfg));
      conn.start();
    }
  }

  /** File clients first; an API client whose id or name a file client already uses is skipped. */
  #desired(
    config: GatewayConfig,
    extra: readonly ClientConfig[],
  ): Map<string, ClientConfig> {
    const desired = new Map<string, ClientConfig>();
    const names = new Set<string>();
    for (const c of [...config.mcp.client_configs, ...extra]) {
      const id = clientId(c);
      if (desired.has(id) || names.has(c.name)) {
        this.#options.logger.error(
          { client: c.name, id },
          "an MCP client with this id or name already exists; ignoring the duplicate",
        );
        continue;
      }
      desired.set(id, c);
      names.add(c.name);
    }
    return desired;
  }

  #create(cfg: ClientConfig): Connection {
    const o = this.#options;
    return new Connection(cfg, {
      logger: o.logger,
      clock: o.clock ?? systemClock,
      registry: this.registry,
      settings: () => this.#settings,
      onStatus: (status, previous) => this.#emit(status, previous),
      secrets: o.secrets,
      authHeaders: o.authHeaders,
      recorder: o.recorder,
      snapshotTools: o.snapshotTools,
      onTools: o.onTools,
      onHealthCheck: o.onHealthCheck,
    });
  }

  /** Closes a connection and drops its tools (unless its replacement keeps the name). */
  async #remove(conn: Connection, replacementName?: string): Promise<void> {
    await conn.close();
    if (replacementName !== conn.name) {
      this.registry.removeClient(conn.name);
      this.#options.recorder?.clientRemoved(conn.name);
    }
  }

  #emit(status: ClientStatus, previous: ClientState | undefined): void {
    for (const l of this.#listeners) {
      try {
        l(status, previous);
      } catch (err) {
        this.#options.logger.error(
          { err },
          "an MCP client state listener threw",
        );
      }
    }
  }

  async #invoke(
    entry: ToolEntry,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const conn = this.#connections.get(entry.clientId);
    if (!conn || conn.name !== entry.client)
      return toolErrorResult(
        `MCP client "${entry.client}" no longer exists; tool "${entry.tool}" is unavailable`,
      );
    // A snapshot-backed entry (the client's first connect is still running): wait for the
    // connect, within the call's own timeout, then call (or report why the client is down).
    if (conn.awaitingFirstConnect && conn.state === "connecting")
      await this.#firstConnect(conn, options);
    return conn.call(entry, args, options);
  }

  /** Resolves when `conn` leaves its first `connecting` (either way), the tool timeout passes, or the caller aborts. */
  #firstConnect(conn: Connection, options: CallOptions): Promise<void> {
    const timeoutMs =
      options.timeoutMs ?? this.#settings.toolExecutionTimeoutMs;
    return new Promise<void>((resolve) => {
      const stop = new AbortController();
      const done = (): void => {
        off();
        stop.abort();
        options.signal?.removeEventListener("abort", done);
        resolve();
      };
      const off = this.onStateChange((status) => {
        if (status.id === conn.id && status.state !== "connecting") done();
      });
      options.signal?.addEventListener("abort", done, { once: true });
      (this.#options.clock ?? systemClock)
        .sleep(timeoutMs, stop.signal)
        .then(done, () => undefined);
    });
  }
}

function notFound(id: string): GatewayError {
  return new GatewayError(
    "TG_ERR_CLIENT_NOT_FOUND",
    `no MCP client with id "${id}"`,
  );
}

export type { Upstreams };

export type FleetAwareUpstreams = UpstreamManager & {
  readonly registry: AggregatedToolRegistry;
  connection(id: string): Connection | undefined;
  checkNow(id: string): Promise<void>;
  refreshTools(id: string): void;
  snapshotChanged(name: string): void;
  idOf(name: string): string | undefined;
};

export function createUpstreamManager(
  options: UpstreamOptions,
): FleetAwareUpstreams {
  return new Upstreams(options);
}
