/**
 * One managed connection to one upstream MCP server: its state machine, (re)connection with
 * backoff, health monitor, tool discovery and tool calls.
 *
 * States and transitions. SPEC 3.1 gives the three rows marked *; the rest are ours:
 *
 *   (created)     -> connecting    the client appears in the config (or the API adds it)
 *   connecting    -> connected     transport started, initialize done AND the first
 *                                  tools/list succeeded (a client without its tools is
 *                                  not connected)
 *   connecting    -> error         a permanent error (bad config, 401/403, missing command),
 *                                  or all 6 attempts of SPEC 8.2 failed
 * * connected     -> disconnected  `max_consecutive_failures` health checks failed in a row;
 *                                  also at once when the transport closes (a stdio child
 *                                  exits, the HTTP session is dropped). Tools go away and
 *                                  automatic reconnection starts
 * * disconnected  -> connected     automatic reconnection succeeded (the state stays
 *                                  `disconnected` while it retries, as SPEC's table reads)
 *   disconnected  -> error         automatic reconnection gave up (permanent error, or
 *                                  retries exhausted)
 * * any           -> connecting    manual reconnect (POST .../reconnect); joins a reconnect
 *                                  already running, since there is one at a time per client
 *   error         -> connecting    manual reconnect; a config change (the connection is
 *                                  rebuilt); or, when the last error was transient, a new
 *                                  background round after the maximum backoff (30 s), so a
 *                                  server that is down for minutes is picked up again. A
 *                                  permanent error waits for a person (reconnect or config).
 *   any           -> (removed)     the client leaves the config; the connection is closed.
 *
 * A health-check success resets the failure count. Settings that need no new connection
 * (tools_to_execute, tools_to_auto_execute, is_ping_available, is_code_mode_client, the
 * health and timeout settings) are read live or re-applied in place by `update`; a new
 * check_interval counts from the next check, so the wait already running finishes first.
 */
import { performance } from "node:perf_hooks";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";

import type { SecretSource } from "../config/env.js";
import type { ClientConfig } from "../config/schema.js";
import { clientId } from "../config/schema.js";
import { toolSelector } from "../registry/naming.js";
import type { AggregatedToolRegistry } from "../registry/tool-registry.js";
import type { CallOptions, ToolEntry } from "../registry/types.js";
import type { McpRecorder } from "../telemetry/types.js";
import { classifyError, isMcpError } from "./classify.js";
import type { Clock } from "./clock.js";
import { discoverTools, listToolsPage } from "./discovery.js";
import { HttpToolCaller } from "./http-tool-call.js";
import { RETRY_POLICY, withRetry } from "./retry.js";
import { createTransport, httpTarget } from "./transport.js";
import type {
  ClientState,
  ClientStatus,
  HealthCheck,
  ToolsOrigin,
} from "./types.js";

/** Global settings every connection reads live (mcp.health_monitor_config, mcp.tool_manager_config). */
export interface ConnectionSettings {
  readonly checkIntervalMs: number;
  readonly checkTimeoutMs: number;
  readonly maxConsecutiveFailures: number;
  readonly toolExecutionTimeoutMs: number;
}

export interface ConnectionDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly registry: AggregatedToolRegistry;
  readonly settings: () => ConnectionSettings;
  readonly onStatus: (
    status: ClientStatus,
    previous: ClientState | undefined,
  ) => void;
  readonly secrets?: SecretSource | undefined;
  readonly authHeaders?:
    ((client: ClientConfig) => Promise<Record<string, string>>) | undefined;
  readonly recorder?: McpRecorder | undefined;
  /**
   * The fleet's last known tool list for a client (tool snapshots), offered in the registry
   * while this connection is in its first `connecting` only; see `awaitingFirstConnect`.
   */
  readonly snapshotTools?:
    ((clientName: string) => readonly Tool[] | undefined) | undefined;
  /** The server's tool list after a connect or a re-listing (`origin` says what caused it). */
  readonly onTools?:
    | ((
        clientName: string,
        tools: readonly Tool[],
        origin: ToolsOrigin,
      ) => void)
    | undefined;
  /** After every counted health check, before any disconnect it causes. */
  readonly onHealthCheck?:
    ((status: ClientStatus, check: HealthCheck) => void) | undefined;
}

interface Session {
  readonly client: Client;
  readonly transport: Transport;
  /** tools/call without the SDK transport (streamable HTTP only; see http-tool-call.ts). */
  fast?: HttpToolCaller | undefined;
  /** Stops this session's health loop and tool refreshes. */
  readonly stop: AbortController;
  refreshing?: Promise<void> | undefined;
  refreshAgain?: boolean;
  /** The origin of the queued refresh: "upstream" wins over "fleet", since it must be announced. */
  refreshOrigin?: ToolsOrigin | undefined;
  /** list_changed arrived while the session was still being set up. */
  changedEarly?: boolean;
}

type ReconnectKind = "initial" | "manual" | "auto" | "background";

const GATEWAY_INFO = { name: "toolgate", version: "0.1.0" };
/** The result of tools/call passes through unchanged, so only its shape as an object is checked. */
const PassThroughResult = z.looseObject({});

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A JSON-RPC error answered by the server counts as a tool error; timeouts and transport trouble as failures. */
function callFailureStatus(err: unknown): "error" | "failure" {
  const answered =
    err instanceof McpError &&
    !isMcpError(err, ErrorCode.RequestTimeout) &&
    !isMcpError(err, ErrorCode.ConnectionClosed);
  return answered ? "error" : "failure";
}

export class Connection {
  #config: ClientConfig;
  readonly #deps: ConnectionDeps;
  #log: Logger;
  #state: ClientState = "connecting";
  #since = new Date();
  #lastError: string | undefined;
  #failures = 0;
  #tools: readonly Tool[] = [];
  #offered: ReadonlySet<string> = new Set();
  #session: Session | undefined;
  #reconnecting: Promise<ClientStatus> | undefined;
  readonly #lifetime = new AbortController();
  #notified = false;
  /** Became true when the first connect ended (connected, error or disconnected); never false again. */
  #settled = false;

  constructor(config: ClientConfig, deps: ConnectionDeps) {
    this.#config = config;
    this.#deps = deps;
    this.#log = deps.logger.child({ client: config.name });
  }

  get id(): string {
    return clientId(this.#config);
  }

  get name(): string {
    return this.#config.name;
  }

  get config(): ClientConfig {
    return this.#config;
  }

  get state(): ClientState {
    return this.#state;
  }

  /** The stdio child's pid while connected over stdio (tests and diagnostics). */
  get pid(): number | undefined {
    const t = this.#session?.transport as { pid?: number | null } | undefined;
    return t?.pid ?? undefined;
  }

  /** The SDK client of the live session, for diagnostics and the bench's bare-call baseline. */
  get sdkClient(): Client | undefined {
    return this.#session?.client;
  }

  status(): ClientStatus {
    const base = {
      id: this.id,
      name: this.name,
      connectionType: this.#config.connection_type,
      state: this.#state,
      since: this.#since.toISOString(),
      tools: [...this.#offered],
      consecutiveFailures: this.#failures,
    };
    return this.#lastError === undefined
      ? base
      : { ...base, lastError: this.#lastError };
  }

  /**
   * True while this connection is in its first `connecting` (never connected, never failed).
   * Only then are the fleet's snapshot tools offered and calls wait for the connect; once the
   * first connect has ended, local truth wins for good (a later reconnect offers nothing from
   * snapshots: this pod has seen the server itself).
   */
  get awaitingFirstConnect(): boolean {
    return !this.#settled;
  }

  /** Re-offers the snapshot tools (a snapshot arrived or changed while awaiting the first connect). */
  snapshotChanged(): void {
    if (!this.#settled) this.#publish();
  }

  /**
   * Runs a health check now (another pod saw this client fail), counted like a scheduled one:
   * a failure adds to the consecutive failures and can disconnect, a success resets them. A
   * no-op unless a session is up.
   */
  async checkNow(): Promise<void> {
    const session = this.#session;
    if (!session || this.#state !== "connected") return;
    await this.#runCheck(session, false);
  }

  /** Re-lists the tools from the live session (another pod saw them change). */
  refreshTools(): void {
    if (this.#session) this.#refreshTools(this.#session, "fleet");
  }

  /** Starts connecting in the background. */
  start(): void {
    this.#publish();
    this.#emitStatus(undefined);
    void this.#runReconnect("initial");
  }

  /** Manual reconnect (SPEC 3.1): any state -> connecting -> connected or error. */
  reconnect(): Promise<ClientStatus> {
    return this.#runReconnect("manual");
  }

  /** Applies a change that needs no new connection (tool lists, code mode, ping method). */
  update(config: ClientConfig): void {
    this.#config = config;
    this.#log = this.#deps.logger.child({ client: config.name });
    this.#publish();
  }

  /** Stops everything; resolves once the session and any attempt in flight (a spawned child) are closed. */
  async close(): Promise<void> {
    this.#lifetime.abort(
      new DOMException("the MCP client was closed", "AbortError"),
    );
    await this.#teardown();
    await this.#reconnecting;
  }

  /** Why a tool cannot be called now, or undefined when it can. */
  #unavailable(tool: string): string | undefined {
    if (this.#state !== "connected" || !this.#session) {
      const why = this.#lastError === undefined ? "" : ` (${this.#lastError})`;
      return `MCP client "${this.name}" is ${this.#state}${why}; its tools are unavailable until it reconnects`;
    }
    if (!this.#offered.has(tool))
      return `tool "${tool}" of MCP client "${this.name}" is not available: it is not in tools_to_execute or the server no longer lists it`;
    return undefined;
  }

  async call(
    entry: ToolEntry,
    args: Record<string, unknown>,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const session = this.#session;
    const unavailable = this.#unavailable(entry.tool);
    if (unavailable !== undefined || !session) {
      this.#record(entry.tool, "failure", 0);
      return toolErrorResult(
        unavailable ?? `MCP client "${this.name}" is not connected`,
      );
    }
    const timeout =
      options.timeoutMs ?? this.#deps.settings().toolExecutionTimeoutMs;
    const started = performance.now();
    try {
      const result = session.fast
        ? await session.fast.call(entry.tool, args, timeout, options.signal)
        : await this.#sdkCall(
            session,
            entry.tool,
            args,
            timeout,
            options.signal,
          );
      this.#record(
        entry.tool,
        result.isError === true ? "error" : "success",
        performance.now() - started,
      );
      return result;
    } catch (err) {
      this.#record(
        entry.tool,
        callFailureStatus(err),
        performance.now() - started,
      );
      return toolErrorResult(this.#describeCallError(entry.tool, err, timeout));
    }
  }

  async #sdkCall(
    session: Session,
    tool: string,
    args: Record<string, unknown>,
    timeout: number,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult> {
    const request = {
      method: "tools/call" as const,
      params: { name: tool, arguments: args },
    };
    const opts = signal ? { timeout, signal } : { timeout };
    return (await session.client.request(
      request,
      PassThroughResult,
      opts,
    )) as CallToolResult;
  }

  #describeCallError(tool: string, err: unknown, timeout: number): string {
    const subject = `tool "${tool}" of MCP client "${this.name}"`;
    if (isMcpError(err, ErrorCode.RequestTimeout))
      return `${subject} timed out after ${timeout} ms (tool_execution_timeout)`;
    if (err instanceof Error && err.name === "AbortError")
      return `${subject} was cancelled by the caller`;
    if (isMcpError(err, ErrorCode.ConnectionClosed))
      return `${subject} failed: the connection to the server closed during the call`;
    if (err instanceof McpError)
      return `${subject} failed: the server answered with an error: ${err.message}`;
    return `${subject} failed: ${errorText(err)}`;
  }

  #record(
    tool: string,
    status: "success" | "error" | "failure",
    ms: number,
  ): void {
    this.#deps.recorder?.toolCall({
      client: this.name,
      tool,
      status,
      durationSeconds: ms / 1000,
    });
  }

  #setState(next: ClientState): void {
    if (next === this.#state && this.#notified) return;
    const previous = this.#state;
    this.#state = next;
    if (next !== "connecting") this.#settled = true;
    this.#since = new Date();
    this.#log.info(
      { from: previous, to: next, lastError: this.#lastError },
      "MCP client state changed",
    );
    this.#publish();
    this.#emitStatus(previous);
  }

  #emitStatus(previous: ClientState | undefined): void {
    this.#notified = true;
    this.#deps.recorder?.clientState(this.name, this.#state);
    this.#deps.onStatus(this.status(), previous);
  }

  /** Tells the registry what this client offers now: its tools when connected, none otherwise. */
  #publish(): void {
    if (this.#lifetime.signal.aborted) return;
    const connected = this.#state === "connected";
    const exec = toolSelector(this.#config.tools_to_execute);
    this.#offered = new Set(
      connected ? this.#tools.map((t) => t.name).filter(exec) : [],
    );
    const snapshot =
      connected || this.#settled
        ? undefined
        : this.#deps.snapshotTools?.(this.name);
    this.#deps.registry.setClient({
      id: this.id,
      name: this.name,
      codeMode: this.#config.is_code_mode_client,
      toolsToExecute: this.#config.tools_to_execute,
      toolsToAutoExecute: this.#config.tools_to_auto_execute,
      tools: connected ? this.#tools : (snapshot ?? []),
    });
    this.#deps.recorder?.clientTools(this.name, this.#offered.size);
  }

  #runReconnect(kind: ReconnectKind): Promise<ClientStatus> {
    if (this.#reconnecting) return this.#reconnecting;
    const run = this.#reconnectOnce(kind);
    this.#reconnecting = run;
    return run;
  }

  /**
   * One reconnect (up to 6 attempts). `#reconnecting` is cleared right before the final state
   * is announced, so a listener that reacts to that state with a new reconnect starts a new
   * one instead of joining this finished one.
   */
  async #reconnectOnce(kind: ReconnectKind): Promise<ClientStatus> {
    const finish = (): ClientStatus => {
      this.#reconnecting = undefined;
      return this.status();
    };
    // Out of service first, so callers see `connecting` (not a connected client without a
    // session) while the old session takes its time to close.
    const old = this.#detach();
    if (kind !== "auto" && !this.#lifetime.signal.aborted)
      this.#setState("connecting");
    await this.#closeSession(old);
    if (this.#lifetime.signal.aborted) return finish();
    if (kind !== "initial") this.#deps.recorder?.clientReconnect(this.name);
    try {
      await withRetry(() => this.#connectOnce(), {
        clock: this.#deps.clock,
        signal: this.#lifetime.signal,
        onRetry: (err, attempt, delay) => {
          this.#lastError = errorText(err);
          this.#log.warn(
            { attempt, retryInMs: delay, err: this.#lastError },
            "MCP client connection attempt failed; retrying",
          );
        },
      });
      this.#failures = 0;
      this.#lastError = undefined;
      finish();
      this.#setState("connected");
      this.#announceTools("connect");
    } catch (err) {
      if (this.#lifetime.signal.aborted) return finish();
      this.#lastError = errorText(err);
      finish();
      this.#setState("error");
      if (classifyError(err) === "transient") this.#scheduleBackgroundRound();
    }
    return this.status();
  }

  #scheduleBackgroundRound(): void {
    this.#deps.clock
      .sleep(RETRY_POLICY.maxBackoffMs, this.#lifetime.signal)
      .then(
        () => {
          if (this.#state === "error" && !this.#reconnecting)
            void this.#runReconnect("background");
        },
        () => undefined,
      );
  }

  /** One attempt: transport, initialize, first tools/list. Throws on any failure, leaving nothing open. */
  async #connectOnce(): Promise<void> {
    const transport = createTransport(this.#config, this.#deps);
    const client = new Client(GATEWAY_INFO, { capabilities: {} });
    const settings = this.#deps.settings();
    // Initialization and the first listing share the tool timeout: a stdio server started
    // through npx can take many seconds, so check_timeout would be too tight.
    const timeout = settings.toolExecutionTimeoutMs;
    const session: Session = { client, transport, stop: new AbortController() };
    client.onerror = (err) =>
      this.#log.debug({ err: errorText(err) }, "MCP transport error");
    client.onclose = () => this.#onSessionClosed(session);
    // Registered before initialize, so a change announced during the first listing is not lost.
    client.setNotificationHandler(ToolListChangedNotificationSchema, () =>
      this.#refreshTools(session, "upstream"),
    );
    try {
      await client.connect(transport, {
        timeout,
        signal: this.#lifetime.signal,
      });
      if (transport instanceof StreamableHTTPClientTransport)
        session.fast = new HttpToolCaller(
          httpTarget(this.#config, this.#deps),
          transport,
        );
      this.#tools = await discoverTools(
        client,
        { timeout, signal: this.#lifetime.signal },
        this.#log,
      );
      // Closed while the last step was in flight: do not leave a live session behind.
      this.#lifetime.signal.throwIfAborted();
    } catch (err) {
      session.stop.abort();
      await session.fast?.close().catch(() => undefined);
      await client.close().catch(() => undefined);
      throw err;
    }
    this.#session = session;
    if (session.changedEarly) this.#refreshTools(session, "upstream");
    void this.#healthLoop(session);
  }

  /** Closes the current session (if any) without reacting to its close event. */
  async #teardown(): Promise<void> {
    await this.#closeSession(this.#detach());
  }

  /** Takes the current session out of service at once (its close event is ignored from here on). */
  #detach(): Session | undefined {
    const session = this.#session;
    this.#session = undefined;
    session?.stop.abort();
    return session;
  }

  /** Closing can take a while (a stdio child gets up to 2 s to exit before SIGTERM). */
  async #closeSession(session: Session | undefined): Promise<void> {
    await session?.fast?.close().catch(() => undefined);
    await session?.client
      .close()
      .catch((err: unknown) =>
        this.#log.debug(
          { err: errorText(err) },
          "closing the MCP client failed",
        ),
      );
  }

  #onSessionClosed(session: Session): void {
    session.stop.abort();
    if (session !== this.#session || this.#lifetime.signal.aborted) return;
    this.#session = undefined;
    this.#lastError = "the connection to the server closed";
    this.#setState("disconnected");
    void this.#runReconnect("auto");
  }

  async #disconnect(session: Session, reason: string): Promise<void> {
    if (session !== this.#session) return;
    this.#lastError = reason;
    this.#detach();
    this.#setState("disconnected");
    await this.#closeSession(session);
    void this.#runReconnect("auto");
  }

  /** Re-lists tools after notifications/tools/list_changed; coalesces bursts into one extra listing. */
  #refreshTools(session: Session, origin: ToolsOrigin): void {
    if (session !== this.#session) {
      session.changedEarly = true;
      return;
    }
    if (session.refreshOrigin !== "upstream") session.refreshOrigin = origin;
    if (session.refreshing) {
      session.refreshAgain = true;
      return;
    }
    const run = async (): Promise<void> => {
      do {
        session.refreshAgain = false;
        const why = session.refreshOrigin ?? origin;
        session.refreshOrigin = undefined;
        const timeout = this.#deps.settings().toolExecutionTimeoutMs;
        const tools = await withRetry(
          () =>
            discoverTools(
              session.client,
              { timeout, signal: session.stop.signal },
              this.#log,
            ),
          {
            clock: this.#deps.clock,
            signal: session.stop.signal,
          },
        );
        if (session !== this.#session) return;
        this.#tools = tools;
        this.#publish();
        this.#announceTools(why);
      } while (session.refreshAgain);
    };
    session.refreshing = run()
      .catch((err: unknown) => {
        if (!session.stop.signal.aborted)
          this.#log.warn(
            { err: errorText(err) },
            "re-listing tools after list_changed failed; keeping the previous list",
          );
      })
      .finally(() => {
        session.refreshing = undefined;
      });
  }

  #announceTools(origin: ToolsOrigin): void {
    if (this.#state !== "connected") return;
    try {
      this.#deps.onTools?.(this.name, this.#tools, origin);
    } catch (err) {
      this.#log.error({ err }, "a tools listener threw");
    }
  }

  async #healthLoop(session: Session): Promise<void> {
    const signal = session.stop.signal;
    try {
      for (;;) {
        await this.#deps.clock.sleep(
          this.#deps.settings().checkIntervalMs,
          signal,
        );
        if (!(await this.#runCheck(session, true))) return;
      }
    } catch {
      // Aborted: the session ended; whoever ended it decides what comes next.
    }
  }

  /** One counted health check (scheduled or on demand). False when the session is over. */
  async #runCheck(session: Session, scheduled: boolean): Promise<boolean> {
    const settings = this.#deps.settings();
    const failure = await this.#check(session, settings.checkTimeoutMs);
    if (session.stop.signal.aborted || session !== this.#session) return false;
    this.#failures = failure === undefined ? 0 : this.#failures + 1;
    try {
      this.#deps.onHealthCheck?.(this.status(), {
        scheduled,
        ...(failure === undefined ? {} : { failure }),
      });
    } catch (err) {
      this.#log.error({ err }, "a health-check listener threw");
    }
    if (failure === undefined) return true;
    this.#log.warn(
      {
        failures: this.#failures,
        of: settings.maxConsecutiveFailures,
        err: failure,
      },
      "MCP client health check failed",
    );
    if (this.#failures < settings.maxConsecutiveFailures) return true;
    await this.#disconnect(
      session,
      `${this.#failures} consecutive health checks failed; last: ${failure}`,
    );
    return false;
  }

  /** One health check by ping, or by tools/list when is_ping_available is false. The failure text, or undefined. */
  async #check(session: Session, timeout: number): Promise<string | undefined> {
    const options = { timeout, signal: session.stop.signal };
    try {
      if (this.#config.is_ping_available) await session.client.ping(options);
      else await listToolsPage(session.client, undefined, options);
      return undefined;
    } catch (err) {
      return isMcpError(err, ErrorCode.RequestTimeout)
        ? `no answer within ${timeout} ms`
        : errorText(err);
    }
  }
}
