/**
 * The connection state machine (SPEC 3.1 plus our documented transitions), retry with
 * backoff (SPEC 8.2), health checks (8.3) and tool discovery, driven by real failures of the
 * fault fixture: refused ports, HTTP 401/500, a missing command, unanswered pings, a crashing
 * child, slow tools and changing tool lists. Waits go through a RecordingClock, which keeps
 * every requested wait (so 1, 2, 4, 8, 16 s are asserted exactly) and runs it 100x faster.
 */
import { afterEach, describe, expect, it } from "vitest";

import type { ClientConfigInput } from "../src/config/schema.js";
import type { RegistryChange } from "../src/registry/types.js";
import type { McpRecorder } from "../src/telemetry/types.js";
import type { ClientState } from "../src/upstream/index.js";
import { createUpstreamManager } from "../src/upstream/index.js";
import type { FaultHttpServer } from "./fixtures/fault-server.js";
import { startFaultHttp } from "./fixtures/fault-server.js";
import { faultStdio, freePort } from "./fixtures/servers.js";
import type { HarnessSettings } from "./fixtures/upstream-harness.js";
import {
  capturingLogger,
  firstText,
  gatewayConfig,
  RecordingClock,
  waitForState,
} from "./fixtures/upstream-harness.js";

const CHECK_INTERVAL_MS = 2500;
/** Tests that are not about health run without health checks, so a slow moment on a busy machine cannot disturb them. */
const FAST: HarnessSettings = {
  checkInterval: "1h",
  checkTimeout: "1s",
  maxFailures: 2,
  toolTimeout: "5s",
};
/** Health tests: a check every 25 ms of real time (2.5 s on the recording clock), 300 ms to answer. */
const HEALTH: HarnessSettings = {
  checkInterval: "2500ms",
  checkTimeout: "300ms",
  maxFailures: 2,
  toolTimeout: "5s",
};
const BACKOFF = [1000, 2000, 4000, 8000, 16000];

type Manager = ReturnType<typeof createUpstreamManager>;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

function setup(
  clients: readonly ClientConfigInput[],
  settings: HarnessSettings = FAST,
) {
  const clock = new RecordingClock(100);
  const log = capturingLogger();
  const manager = createUpstreamManager({ logger: log.logger, clock });
  const states: Array<[string, ClientState]> = [];
  manager.onStateChange((s) => states.push([s.id, s.state]));
  cleanup.push(() => manager.close());
  const config = gatewayConfig(clients, settings);
  return {
    manager,
    clock,
    log,
    states,
    config,
    backoffWaits: () =>
      clock.waits.filter((w) => w !== CHECK_INTERVAL_MS && w !== 3_600_000),
  };
}

async function faultHttp(
  state: Parameters<typeof startFaultHttp>[0] = {},
): Promise<FaultHttpServer> {
  const server = await startFaultHttp(state);
  cleanup.push(() => server.close());
  return server;
}

const httpClient = (
  name: string,
  url: string,
  extra: Partial<ClientConfigInput> = {},
): ClientConfigInput => ({
  name,
  connection_type: "http",
  connection_string: url,
  tools_to_execute: ["*"],
  ...extra,
});

async function call(
  manager: Manager,
  name: string,
  args: Record<string, unknown> = {},
  opts = {},
) {
  const entry = manager.registry.resolve(name);
  if (!entry)
    throw new Error(
      `${name} is not offered; offered: ${manager.registry
        .list()
        .map((e) => e.name)
        .join(", ")}`,
    );
  return manager.registry.call(entry, args, opts);
}

describe("connecting", () => {
  it("goes from connecting to connected once initialize and the first tools/list succeed", async () => {
    const { manager, states, config } = setup([faultStdio("fault")]);
    await manager.apply(config);
    expect(manager.get("fault")?.state).toBe("connecting");
    await waitForState(manager, "fault", "connected");
    expect(states).toEqual([
      ["fault", "connecting"],
      ["fault", "connected"],
    ]);
    expect(manager.get("fault")).toMatchObject({
      id: "fault",
      name: "fault",
      connectionType: "stdio",
      consecutiveFailures: 0,
    });
    expect(manager.registry.list().map((e) => e.name)).toEqual([
      "fault_echo",
      "fault_fail",
      "fault_fault_crash",
      "fault_fault_pid",
      "fault_fault_set",
      "fault_slow",
    ]);
  });

  it("does not count a client whose first tools/list fails as connected, and retries it with backoff", async () => {
    const server = await faultHttp({ listError: true });
    const { manager, states, config, backoffWaits } = setup([
      httpClient("lister", server.mcpUrl),
    ]);
    await manager.apply(config);
    await waitForState(manager, "lister", "error");
    expect(states.map(([, s]) => s)).toEqual(["connecting", "error"]);
    expect(backoffWaits().slice(0, 5)).toEqual(BACKOFF);
    expect(manager.registry.list()).toEqual([]);
    expect(manager.get("lister")?.lastError).toMatch(
      /tools\/list failed by fault injection.*gave up after 6 attempts/,
    );
  });

  it("retries a refused port exactly 5 times, waiting 1, 2, 4, 8 and 16 s, then goes to error", async () => {
    const port = await freePort();
    const { manager, states, config, backoffWaits } = setup([
      httpClient("refused", `http://127.0.0.1:${port}/mcp`),
    ]);
    await manager.apply(config);
    const status = await waitForState(manager, "refused", "error");
    expect(backoffWaits().slice(0, 5)).toEqual(BACKOFF);
    expect(status.lastError).toMatch(/gave up after 6 attempts/);
    expect(states.map(([, s]) => s)).toEqual(["connecting", "error"]);
  });

  it("retries HTTP 500 as transient", async () => {
    const server = await faultHttp({ httpStatus: 500 });
    const { manager, config, backoffWaits } = setup([
      httpClient("five", server.mcpUrl),
    ]);
    await manager.apply(config);
    await waitForState(manager, "five", "error");
    expect(backoffWaits().slice(0, 5)).toEqual(BACKOFF);
  });

  it.each([
    ["HTTP 401 over streamable HTTP", "http", 401],
    ["HTTP 403 over SSE", "sse", 403],
  ] as const)(
    "goes to error at once without retrying on %s",
    async (_, type, status) => {
      const server = await faultHttp({ httpStatus: status });
      const url = type === "http" ? server.mcpUrl : server.sseUrl;
      const { manager, states, config, backoffWaits } = setup([
        httpClient("denied", url, { connection_type: type }),
      ]);
      await manager.apply(config);
      const final = await waitForState(manager, "denied", "error");
      expect(backoffWaits()).toEqual([]);
      expect(final.lastError).toContain(String(status));
      expect(states.map(([, s]) => s)).toEqual(["connecting", "error"]);
    },
  );

  it("goes to error at once when the stdio command does not exist", async () => {
    const { manager, config, backoffWaits } = setup([
      {
        name: "ghost",
        connection_type: "stdio",
        stdio_config: { command: "/nonexistent/toolgate-no-such-command" },
      },
    ]);
    await manager.apply(config);
    const final = await waitForState(manager, "ghost", "error");
    expect(final.lastError).toMatch(/ENOENT/);
    expect(backoffWaits()).toEqual([]);
  });

  it("goes to error at once when connection_string names an unset variable", async () => {
    const { manager, config } = setup([
      httpClient("unset", "env.TOOLGATE_TEST_SURELY_UNSET_URL"),
    ]);
    await manager.apply(config);
    const final = await waitForState(manager, "unset", "error");
    expect(final.lastError).toContain("TOOLGATE_TEST_SURELY_UNSET_URL");
  });

  it("sends the static headers and the auth-header hook's headers on every request", async () => {
    const server = await faultHttp();
    const seen: string[] = [];
    const clock = new RecordingClock(100);
    const manager = createUpstreamManager({
      logger: capturingLogger().logger,
      clock,
      secrets: { env: { TOOLGATE_TEST_KEY: "from-env" } },
      authHeaders: (client) => {
        seen.push(client.name);
        return Promise.resolve({
          authorization: `Bearer token-${seen.length}`,
        });
      },
    });
    cleanup.push(() => manager.close());
    await manager.apply(
      gatewayConfig(
        [
          httpClient("hdr", server.mcpUrl, {
            auth_type: "headers",
            headers: { "x-api-key": "env.TOOLGATE_TEST_KEY" },
          }),
        ],
        FAST,
      ),
    );
    await waitForState(manager, "hdr", "connected");
    const echoed = await call(manager, "hdr_echo", { text: "x" });
    expect(echoed.isError).not.toBe(true);
    const mcpRequests = server.requestHeaders;
    expect(mcpRequests.length).toBeGreaterThanOrEqual(3);
    for (const h of mcpRequests) expect(h["x-api-key"]).toBe("from-env");
    // The hook is asked anew for every request, so its value changes from request to request.
    const tokens = new Set(mcpRequests.map((h) => h.authorization));
    expect(tokens.size).toBe(mcpRequests.length);
    expect(seen.every((n) => n === "hdr")).toBe(true);
  });
});

describe("health monitor and reconnection", () => {
  it("marks a client disconnected after max_consecutive_failures unanswered pings, drops its tools, and fails calls at once", async () => {
    const server = await faultHttp();
    const { manager, config } = setup(
      [httpClient("pinger", server.mcpUrl)],
      HEALTH,
    );
    await manager.apply(config);
    await waitForState(manager, "pinger", "connected");
    const entry = manager.registry.resolve("pinger_echo");
    expect(entry).toBeDefined();
    // Every later session answers pings again, so the automatic reconnect can succeed.
    server.set({ pings: "ignore" });
    const gone = waitForState(manager, "pinger", "disconnected");
    const status = await gone;
    expect(status.lastError).toMatch(
      /2 consecutive health checks failed; last: no answer within 300 ms/,
    );
    expect(status.tools).toEqual([]);
    expect(manager.registry.resolve("pinger_echo")).toBeUndefined();
    const result = await manager.registry.call(entry!, { text: "x" });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /MCP client "pinger" is (disconnected|connected)/,
    );
  });

  it("resets the failure count on a successful check", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("flaky", server.mcpUrl)], {
      ...HEALTH,
      maxFailures: 3,
    });
    await manager.apply(config);
    await waitForState(manager, "flaky", "connected");
    server.set({ pings: "ignore" });
    await expect
      .poll(() => manager.get("flaky")?.consecutiveFailures, { timeout: 5000 })
      .toBe(1);
    server.set({ pings: "answer" });
    await expect
      .poll(() => manager.get("flaky")?.consecutiveFailures, { timeout: 5000 })
      .toBe(0);
    expect(manager.get("flaky")?.state).toBe("connected");
  });

  it("reconnects automatically with backoff once the server comes back (disconnected -> connected)", async () => {
    const server = await faultHttp();
    const { manager, states, config, backoffWaits } = setup(
      [httpClient("phoenix", server.mcpUrl)],
      HEALTH,
    );
    await manager.apply(config);
    await waitForState(manager, "phoenix", "connected");
    await server.stop();
    await waitForState(manager, "phoenix", "disconnected");
    // Let two backoff waits pass against the refused port, then come back.
    await expect
      .poll(() => backoffWaits().length, { timeout: 5000 })
      .toBeGreaterThanOrEqual(2);
    await server.listen();
    await waitForState(manager, "phoenix", "connected");
    expect(backoffWaits().slice(0, 2)).toEqual([1000, 2000]);
    expect(states.map(([, s]) => s)).toEqual([
      "connecting",
      "connected",
      "disconnected",
      "connected",
    ]);
    const result = await call(manager, "phoenix_echo", { text: "back" });
    expect(firstText(result)).toContain("back");
  });

  it("goes from disconnected to error when automatic reconnection gives up", async () => {
    const server = await faultHttp();
    const { manager, states, config, backoffWaits } = setup(
      [httpClient("gone", server.mcpUrl)],
      HEALTH,
    );
    await manager.apply(config);
    await waitForState(manager, "gone", "connected");
    await server.stop();
    const status = await waitForState(manager, "gone", "error");
    expect(status.lastError).toMatch(/gave up after 6 attempts/);
    expect(backoffWaits().slice(0, 5)).toEqual(BACKOFF);
    expect(states.map(([, s]) => s)).toEqual([
      "connecting",
      "connected",
      "disconnected",
      "error",
    ]);
  });

  it("notices a stdio child that exits at once, not at the next health check", async () => {
    const { manager, states, config } = setup([faultStdio("crashy")]);
    await manager.apply(config);
    await waitForState(manager, "crashy", "connected");
    const pid = Number(firstText(await call(manager, "crashy_fault_pid")));
    await call(manager, "crashy_fault_crash");
    await waitForState(manager, "crashy", "disconnected");
    await waitForState(manager, "crashy", "connected");
    const newPid = Number(firstText(await call(manager, "crashy_fault_pid")));
    expect(newPid).not.toBe(pid);
    expect(states.map(([, s]) => s)).toEqual([
      "connecting",
      "connected",
      "disconnected",
      "connected",
    ]);
  });

  it("checks health by listing tools when is_ping_available is false, and switches method at the next check without reconnecting", async () => {
    const server = await faultHttp({ pings: "ignore" });
    const clients = [
      httpClient("lister", server.mcpUrl, { is_ping_available: false }),
    ];
    const { manager, config, states } = setup(clients, {
      ...HEALTH,
      maxFailures: 50,
    });
    await manager.apply(config);
    await waitForState(manager, "lister", "connected");
    const sessionsBefore = server.requestHeaders.filter(
      (h) => h["mcp-session-id"] === undefined,
    ).length;
    // Pings go unanswered, but listing works: the client stays healthy.
    await expect
      .poll(() => server.requestHeaders.length, { timeout: 5000 })
      .toBeGreaterThan(sessionsBefore + 4);
    expect(manager.get("lister")?.consecutiveFailures).toBe(0);
    // Switch to ping: failures start counting at the next check, with no reconnect.
    await manager.apply(
      gatewayConfig([{ ...clients[0]!, is_ping_available: true }], {
        ...HEALTH,
        maxFailures: 50,
      }),
    );
    await expect
      .poll(() => manager.get("lister")?.consecutiveFailures, { timeout: 5000 })
      .toBeGreaterThanOrEqual(1);
    // Back to listing: the next check succeeds and resets the count.
    await manager.apply(gatewayConfig(clients, { ...HEALTH, maxFailures: 50 }));
    await expect
      .poll(() => manager.get("lister")?.consecutiveFailures, { timeout: 5000 })
      .toBe(0);
    expect(states.map(([, s]) => s)).toEqual(["connecting", "connected"]);
    const initializes = server.requestHeaders.filter(
      (h) => h["mcp-session-id"] === undefined,
    ).length;
    expect(initializes).toBe(sessionsBefore);
  });

  it("marks a client disconnected when listing fails as its health check", async () => {
    const server = await faultHttp();
    const { manager, config } = setup(
      [httpClient("lister", server.mcpUrl, { is_ping_available: false })],
      HEALTH,
    );
    await manager.apply(config);
    await waitForState(manager, "lister", "connected");
    server.set({ listError: true });
    const status = await waitForState(manager, "lister", "disconnected");
    expect(status.lastError).toContain("tools/list failed by fault injection");
  });

  it("reconnects manually from error once the cause is fixed (error -> connecting -> connected)", async () => {
    const server = await faultHttp({ httpStatus: 401 });
    const { manager, states, config } = setup([
      httpClient("manual", server.mcpUrl),
    ]);
    await manager.apply(config);
    await waitForState(manager, "manual", "error");
    server.set({ httpStatus: null });
    const status = await manager.reconnect("manual");
    expect(status.state).toBe("connected");
    expect(states.map(([, s]) => s)).toEqual([
      "connecting",
      "error",
      "connecting",
      "connected",
    ]);
    expect(manager.registry.resolve("manual_echo")).toBeDefined();
  });

  it("reconnects manually from disconnected, one reconnect at a time", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("twice", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "twice", "connected");
    const before = server.requestHeaders.filter(
      (h) => h["mcp-session-id"] === undefined,
    ).length;
    const [a, b] = await Promise.all([
      manager.reconnect("twice"),
      manager.reconnect("twice"),
    ]);
    expect(a).toEqual(b);
    expect(a.state).toBe("connected");
    const after = server.requestHeaders.filter(
      (h) => h["mcp-session-id"] === undefined,
    ).length;
    expect(after - before).toBe(1);
  });

  it("rejects a manual reconnect of an unknown client with TG_ERR_CLIENT_NOT_FOUND", async () => {
    const { manager, config } = setup([]);
    await manager.apply(config);
    await expect(manager.reconnect("nobody")).rejects.toMatchObject({
      code: "TG_ERR_CLIENT_NOT_FOUND",
    });
    await expect(manager.waitConnected("nobody", 10)).rejects.toMatchObject({
      code: "TG_ERR_CLIENT_NOT_FOUND",
    });
  });

  it("tries again in the background after the maximum backoff when the last error was transient (error -> connecting -> connected)", async () => {
    const port = await freePort();
    const { manager, states, config, clock } = setup([
      httpClient("later", `http://127.0.0.1:${port}/mcp`),
    ]);
    await manager.apply(config);
    await waitForState(manager, "later", "error");
    const server = await startFaultHttp({}, port);
    cleanup.push(() => server.close());
    await waitForState(manager, "later", "connected");
    expect(clock.waits).toContain(30_000);
    expect(states.map(([, s]) => s)).toEqual([
      "connecting",
      "error",
      "connecting",
      "connected",
    ]);
  });

  it("rejects waitConnected with TG_ERR_TIMEOUT when the client does not connect in time", async () => {
    const { manager, config } = setup([
      {
        name: "ghost",
        connection_type: "stdio",
        stdio_config: { command: "/nonexistent/toolgate-no-such-command" },
      },
    ]);
    await manager.apply(config);
    await expect(manager.waitConnected("ghost", 50)).rejects.toMatchObject({
      code: "TG_ERR_TIMEOUT",
    });
  });
});

describe("tools", () => {
  it("re-lists tools on notifications/tools/list_changed and emits a change event", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("dyn", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "dyn", "connected");
    const changes: RegistryChange[] = [];
    manager.registry.onChange((c) => changes.push(c));
    const version = manager.registry.version;
    await call(manager, "dyn_fault_set", {
      patch: { tools: ["echo", "fresh"] },
    });
    await expect
      .poll(() => manager.registry.resolve("dyn_fresh"), { timeout: 5000 })
      .toBeDefined();
    expect(manager.registry.resolve("dyn_slow")).toBeUndefined();
    expect(manager.registry.version).toBeGreaterThan(version);
    expect(changes).toContainEqual({
      kind: "client-tools",
      client: "dyn",
      added: ["dyn_fresh"],
      removed: ["dyn_fail", "dyn_slow"],
      changed: [],
    });
    expect(
      firstText(await call(manager, "dyn_fresh", { text: "hi" })),
    ).toContain("fresh");
  });

  it("follows nextCursor through every page of tools/list", async () => {
    const server = await faultHttp({
      pageSize: 2,
      tools: ["a", "b", "c", "d", "e"],
    });
    const { manager, config } = setup([httpClient("paged", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "paged", "connected");
    expect(manager.get("paged")?.tools).toEqual([
      "a",
      "b",
      "c",
      "d",
      "e",
      "fault_set",
      "fault_crash",
      "fault_pid",
    ]);
  });

  it("skips a tool with an invalid inputSchema with a warning and serves the rest", async () => {
    const server = await faultHttp({ invalidTool: true });
    const { manager, config, log } = setup([
      httpClient("picky", server.mcpUrl),
    ]);
    await manager.apply(config);
    await waitForState(manager, "picky", "connected");
    expect(manager.registry.resolve("picky_broken")).toBeUndefined();
    expect(manager.registry.resolve("picky_echo")).toBeDefined();
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        tool: "broken",
        msg: "skipping a tool with an invalid definition",
      }),
    );
  });

  it("offers only the tools in tools_to_execute and re-filters in place when it changes", async () => {
    const server = await faultHttp();
    const client = httpClient("some", server.mcpUrl, {
      tools_to_execute: ["echo"],
    });
    const { manager, config, states } = setup([client]);
    await manager.apply(config);
    await waitForState(manager, "some", "connected");
    expect(manager.registry.list().map((e) => e.name)).toEqual(["some_echo"]);
    await manager.apply(
      gatewayConfig(
        [
          {
            ...client,
            tools_to_execute: ["echo", "slow"],
            tools_to_auto_execute: ["slow"],
          },
        ],
        FAST,
      ),
    );
    expect(manager.registry.list().map((e) => [e.name, e.autoExecute])).toEqual(
      [
        ["some_echo", false],
        ["some_slow", true],
      ],
    );
    await manager.apply(
      gatewayConfig([{ ...client, tools_to_execute: [] }], FAST),
    );
    expect(manager.registry.list()).toEqual([]);
    expect(states.map(([, s]) => s)).toEqual(["connecting", "connected"]);
  });

  it("hides code-mode clients' tools unless the filter asks for them, switching in place", async () => {
    const server = await faultHttp();
    const client = httpClient("cm", server.mcpUrl, {
      tools_to_execute: ["echo"],
    });
    const { manager, config } = setup([client]);
    await manager.apply(config);
    await waitForState(manager, "cm", "connected");
    await manager.apply(
      gatewayConfig([{ ...client, is_code_mode_client: true }], FAST),
    );
    expect(manager.registry.list()).toEqual([]);
    expect(
      manager.registry
        .list({ includeCodeMode: true })
        .map((e) => [e.name, e.codeMode]),
    ).toEqual([["cm_echo", true]]);
    expect(manager.get("cm")?.state).toBe("connected");
  });
});

describe("tool calls", () => {
  it("turns a slow tool into an isError result after tool_execution_timeout", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("slowpoke", server.mcpUrl)], {
      ...FAST,
      toolTimeout: "200ms",
    });
    await manager.apply(config);
    await waitForState(manager, "slowpoke", "connected");
    const result = await call(manager, "slowpoke_slow", { ms: 5000 });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toBe(
      'tool "slow" of MCP client "slowpoke" timed out after 200 ms (tool_execution_timeout)',
    );
    // The per-call override wins over the configured timeout.
    expect(
      firstText(
        await call(manager, "slowpoke_slow", { ms: 50 }, { timeoutMs: 2000 }),
      ),
    ).toBe("done");
  });

  it("stops waiting when the caller aborts", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("abortable", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "abortable", "connected");
    const ac = new AbortController();
    const pending = call(
      manager,
      "abortable_slow",
      { ms: 5000 },
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 50);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain('MCP client "abortable"');
  });

  it("passes the upstream result back unchanged, including tool errors", async () => {
    const server = await faultHttp();
    const { manager, config } = setup([httpClient("plain", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "plain", "connected");
    expect(await call(manager, "plain_fail")).toEqual({
      content: [{ type: "text", text: "this tool always fails" }],
      isError: true,
    });
    expect(await call(manager, "plain_echo", { text: "hi" })).toEqual({
      content: [
        {
          type: "text",
          text: JSON.stringify({ tool: "echo", args: { text: "hi" } }),
        },
      ],
    });
  });

  it("turns a JSON-RPC error from the server into an isError result naming the client", async () => {
    const server = await faultHttp({ callError: "database is on fire" });
    const { manager, config } = setup([httpClient("burning", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "burning", "connected");
    const result = await call(manager, "burning_echo", { text: "x" });
    expect(result.isError).toBe(true);
    expect(firstText(result)).toContain(
      'tool "echo" of MCP client "burning" failed: the server answered with an error',
    );
    expect(firstText(result)).toContain("database is on fire");
  });

  it("fails a call to a client that is not connected at once, naming the client and its state", async () => {
    const server = await faultHttp({ httpStatus: 401 });
    const { manager, config } = setup([httpClient("locked", server.mcpUrl)]);
    await manager.apply(config);
    await waitForState(manager, "locked", "error");
    const entry = {
      name: "locked_echo",
      client: "locked",
      clientId: "locked",
      tool: "echo",
      definition: { name: "echo", inputSchema: { type: "object" as const } },
      autoExecute: false,
      codeMode: false,
    };
    const result = await manager.registry.call(entry, {});
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(
      /^MCP client "locked" is error \(.*401.*\); its tools are unavailable until it reconnects$/,
    );
  });
});

describe("telemetry and API clients", () => {
  it("reports tool calls, states, tool counts, reconnects and removals to the recorder", async () => {
    const server = await faultHttp({ tools: ["echo", "fail", "slow"] });
    const events: string[] = [];
    const recorder: McpRecorder = {
      toolCall: (r) =>
        events.push(
          `call ${r.client}/${r.tool} ${r.status} ${r.durationSeconds >= 0 ? "timed" : "untimed"}`,
        ),
      clientState: (c, s) => events.push(`state ${c} ${s}`),
      clientReconnect: (c) => events.push(`reconnect ${c}`),
      clientTools: (c, n) => events.push(`tools ${c} ${n}`),
      clientRemoved: (c) => events.push(`removed ${c}`),
      agentIterations: () => undefined,
      codeModeExecution: () => undefined,
    };
    const manager = createUpstreamManager({
      logger: capturingLogger().logger,
      clock: new RecordingClock(100),
      recorder,
    });
    cleanup.push(() => manager.close());
    const client = httpClient("rec", server.mcpUrl);
    await manager.apply(
      gatewayConfig([client], { ...FAST, toolTimeout: "200ms" }),
    );
    await waitForState(manager, "rec", "connected");
    await call(manager, "rec_echo", { text: "x" });
    await call(manager, "rec_fail");
    await call(manager, "rec_slow", { ms: 2000 });
    await manager.reconnect("rec");
    await manager.apply(gatewayConfig([], FAST));
    expect(events).toEqual([
      "tools rec 0",
      "state rec connecting",
      "tools rec 6",
      "state rec connected",
      "call rec/echo success timed",
      "call rec/fail error timed",
      "call rec/slow failure timed",
      "tools rec 0",
      "state rec connecting",
      "reconnect rec",
      "tools rec 6",
      "state rec connected",
      "removed rec",
    ]);
  });

  it("adds API clients next to file clients and ignores one that reuses a file client's name", async () => {
    const server = await faultHttp();
    const { manager, config, log } = setup([
      httpClient("filed", server.mcpUrl),
    ]);
    await manager.apply(config, [
      {
        ...gatewayConfig([httpClient("api", server.mcpUrl)]).mcp
          .client_configs[0]!,
      },
      {
        ...gatewayConfig([
          httpClient("filed", server.mcpUrl, { id: "other-id" }),
        ]).mcp.client_configs[0]!,
      },
    ]);
    await Promise.all(
      ["filed", "api"].map((id) => waitForState(manager, id, "connected")),
    );
    expect(manager.list().map((s) => s.id)).toEqual(["filed", "api"]);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ client: "filed", id: "other-id" }),
    );
  });
});
