/**
 * The MCP client set as the management API sees it: clients from the config file (read-only
 * here, except reconnect) plus clients created through the API (kept in a repository that the
 * state store backs, so they survive restarts with Redis and reach every pod). Every change
 * ends in one level-based `upstream.apply(fileConfig, apiClients)`, the same call a config
 * reload makes, so the API and the file can never disagree about what runs.
 *
 * Mutations are serialised: two API calls never interleave their read-check-write.
 */
import type { Logger } from "pino";

import { redact } from "../config/redact.js";
import {
  ClientConfig,
  ClientConfigObject,
  clientId,
  type GatewayConfig,
} from "../config/schema.js";
import { GatewayError } from "../errors.js";
import type { ClientFleetHealth, FleetHealth } from "../state/fleet-health.js";
import { summarize } from "../state/fleet-health.js";
import type { RuntimeClients } from "../state/runtime-clients.js";
import type { ClientStatus, UpstreamManager } from "../upstream/types.js";

export type ClientSource = "file" | "api";

/** What GET /api/mcp/client(s) return for one client. */
export interface ClientView {
  readonly id: string;
  readonly name: string;
  readonly source: ClientSource;
  readonly connection_type: ClientConfig["connection_type"];
  readonly state: ClientStatus["state"] | "connecting";
  readonly since?: string;
  readonly tools: readonly string[];
  readonly tool_count: number;
  readonly last_error?: string;
  readonly consecutive_failures: number;
  /** The configuration with secrets redacted (env. references shown as written, literals as ***). */
  readonly config: ClientConfig;
  /** Every pod's view of the client (GET routes only); the fields above are this pod's. */
  readonly fleet?: FleetView;
}

/**
 * The fleet view of one client: every pod's report and a summary, or, when the state store
 * cannot be read, `available: false` with the reason (the local fields are still answered).
 */
export type FleetView =
  | {
      readonly available: true;
      readonly summary: ClientFleetHealth["summary"];
      readonly pods: ClientFleetHealth["pods"];
    }
  | { readonly available: false; readonly error: string };

export interface ClientServiceOptions {
  readonly upstream: UpstreamManager;
  /** API-created clients, shared by the fleet through the state store. */
  readonly repository: RuntimeClients;
  readonly logger: Logger;
  readonly initialConfig: GatewayConfig;
  /** Per-pod health in the state store, for the `fleet` field of the GET views. */
  readonly fleetHealth?: FleetHealth;
}

/** PUT bodies: any subset of the client fields (all strictly typed; unknown keys refused). */
export const ClientPatch = ClientConfigObject.partial().strict();
export type ClientPatch = ReturnType<typeof ClientPatch.parse>;

export class ClientService {
  private fileConfig: GatewayConfig;
  private apiClients: readonly ClientConfig[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly opts: ClientServiceOptions) {
    this.fileConfig = opts.initialConfig;
  }

  /** Loads the API-created clients, follows their changes (other pods), and applies the whole set. */
  async start(): Promise<void> {
    await this.opts.repository.start();
    this.apiClients = this.opts.repository.list();
    this.unsubscribe = this.opts.repository.onChange((clients) => {
      this.apiClients = clients;
      this.applyLogged();
    });
    await this.apply();
  }

  stop(): void {
    this.unsubscribe?.();
  }

  get config(): GatewayConfig {
    return this.fileConfig;
  }

  /** A validated file config (startup or hot reload). */
  async setFileConfig(config: GatewayConfig): Promise<void> {
    this.fileConfig = config;
    await this.apply();
  }

  list(): ClientView[] {
    return [...this.fileClients(), ...this.effectiveApiClients()].map((c) =>
      this.view(c),
    );
  }

  get(id: string): ClientView {
    const found = this.find(id);
    if (!found) throw notFound(id);
    return this.view(found.client);
  }

  /** `list()` with each client's fleet view (one store read for all). */
  async listWithFleet(): Promise<ClientView[]> {
    const views = this.list();
    const health = this.opts.fleetHealth;
    if (!health) return views;
    let byName: Map<string, ClientFleetHealth>;
    try {
      byName = new Map((await health.fleet()).map((c) => [c.client, c]));
    } catch (err) {
      const fleet: FleetView = { available: false, error: errorText(err) };
      return views.map((v) => ({ ...v, fleet }));
    }
    return views.map((v) => ({
      ...v,
      fleet: fleetView(byName.get(v.name) ?? summarize(v.name, [])),
    }));
  }

  /** `get()` with the client's fleet view. */
  async getWithFleet(id: string): Promise<ClientView> {
    const view = this.get(id);
    const health = this.opts.fleetHealth;
    if (!health) return view;
    try {
      return { ...view, fleet: fleetView(await health.client(view.name)) };
    } catch (err) {
      return { ...view, fleet: { available: false, error: errorText(err) } };
    }
  }

  create(input: ClientConfig): Promise<ClientView> {
    return this.serial(async () => {
      this.checkStdio(input);
      this.checkUnique(input, undefined);
      await this.opts.repository.upsert(input);
      this.apiClients = [
        ...this.apiClients.filter((c) => clientId(c) !== clientId(input)),
        input,
      ];
      await this.apply();
      return this.view(input);
    });
  }

  update(id: string, patch: ClientPatch): Promise<ClientView> {
    return this.serial(async () => {
      const current = this.editable(id);
      const merged = ClientConfig.safeParse({
        ...current,
        ...patch,
        id: clientId(current),
      });
      if (!merged.success) {
        throw new GatewayError(
          "TG_ERR_VALIDATION",
          "the edited client is invalid",
          {
            problems: merged.error.issues.map((i) => ({
              path: i.path.join("."),
              message: i.message,
            })),
          },
        );
      }
      this.checkStdio(merged.data);
      this.checkUnique(merged.data, id);
      await this.opts.repository.upsert(merged.data);
      this.apiClients = this.apiClients.map((c) =>
        clientId(c) === id ? merged.data : c,
      );
      await this.apply();
      return this.view(merged.data);
    });
  }

  remove(id: string): Promise<void> {
    return this.serial(async () => {
      this.editable(id);
      await this.opts.repository.remove(id);
      this.apiClients = this.apiClients.filter((c) => clientId(c) !== id);
      await this.apply();
    });
  }

  async reconnect(id: string): Promise<ClientView> {
    const found = this.find(id);
    if (!found) throw notFound(id);
    await this.opts.upstream.reconnect(id);
    return this.view(found.client);
  }

  private fileClients(): readonly ClientConfig[] {
    return this.fileConfig.mcp.client_configs;
  }

  /** API clients minus any whose name or id a file client has taken since (the file wins). */
  private effectiveApiClients(): readonly ClientConfig[] {
    const names = new Set(this.fileClients().map((c) => c.name));
    const ids = new Set(this.fileClients().map(clientId));
    return this.apiClients.filter(
      (c) => !names.has(c.name) && !ids.has(clientId(c)),
    );
  }

  private find(
    id: string,
  ): { client: ClientConfig; source: ClientSource } | undefined {
    const file = this.fileClients().find((c) => clientId(c) === id);
    if (file) return { client: file, source: "file" };
    const api = this.effectiveApiClients().find((c) => clientId(c) === id);
    return api ? { client: api, source: "api" } : undefined;
  }

  private editable(id: string): ClientConfig {
    const found = this.find(id);
    if (!found) throw notFound(id);
    if (found.source === "file") {
      throw new GatewayError(
        "TG_ERR_CLIENT_FROM_FILE",
        `client "${id}" comes from the config file; change it there (the API can only reconnect it)`,
      );
    }
    return found.client;
  }

  private checkStdio(c: ClientConfig): void {
    if (
      c.connection_type === "stdio" &&
      !this.fileConfig.server.allow_stdio_from_api
    ) {
      throw new GatewayError(
        "TG_ERR_STDIO_FROM_API",
        "creating stdio clients through the API runs a command on the gateway host and is disabled; set server.allow_stdio_from_api to true to allow it",
      );
    }
  }

  private checkUnique(c: ClientConfig, exceptId: string | undefined): void {
    for (const other of [
      ...this.fileClients(),
      ...this.effectiveApiClients(),
    ]) {
      const otherId = clientId(other);
      if (otherId === exceptId) continue;
      if (other.name === c.name)
        throw new GatewayError(
          "TG_ERR_CLIENT_NAME_TAKEN",
          `an MCP client named "${c.name}" exists (id "${otherId}")`,
        );
      if (otherId === clientId(c))
        throw new GatewayError(
          "TG_ERR_CONFLICT",
          `an MCP client with id "${otherId}" exists`,
        );
    }
  }

  private view(client: ClientConfig): ClientView {
    const id = clientId(client);
    const source: ClientSource = this.fileClients().some(
      (c) => clientId(c) === id,
    )
      ? "file"
      : "api";
    return {
      id,
      name: client.name,
      source,
      connection_type: client.connection_type,
      ...statusFields(this.opts.upstream.get(id)),
      config: redact(client),
    };
  }

  private apply(): Promise<void> {
    return this.opts.upstream.apply(
      this.fileConfig,
      this.effectiveApiClients(),
    );
  }

  private applyLogged(): void {
    this.apply().catch((err: unknown) =>
      this.opts.logger.error({ err }, "applying the MCP client set failed"),
    );
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function fleetView(h: ClientFleetHealth): FleetView {
  return { available: true, summary: h.summary, pods: h.pods };
}

/** The live part of a view; a client the manager does not know yet is about to connect. */
function statusFields(
  status: ClientStatus | undefined,
): Pick<
  ClientView,
  | "state"
  | "since"
  | "tools"
  | "tool_count"
  | "last_error"
  | "consecutive_failures"
> {
  if (!status)
    return {
      state: "connecting",
      tools: [],
      tool_count: 0,
      consecutive_failures: 0,
    };
  return {
    state: status.state,
    since: status.since,
    tools: status.tools,
    tool_count: status.tools.length,
    ...(status.lastError !== undefined ? { last_error: status.lastError } : {}),
    consecutive_failures: status.consecutiveFailures,
  };
}

function notFound(id: string): GatewayError {
  return new GatewayError(
    "TG_ERR_CLIENT_NOT_FOUND",
    `no MCP client with id "${id}"; GET /api/mcp/clients lists them`,
  );
}
