/**
 * The upstream seams the fleet uses, against the real fault fixture over HTTP: snapshot
 * tools offered during a connection's first `connecting` (a call waits for that connect,
 * bounded by the tool timeout; once it ends, local truth wins), an on-demand health check
 * counted like a scheduled one, and a re-listing asked for by another pod.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { HealthCheck, ToolsOrigin } from "../src/upstream/index.js";
import { createUpstreamManager } from "../src/upstream/index.js";
import {
  type FaultHttpServer,
  startFaultHttp,
} from "./fixtures/fault-server.js";
import {
  firstText,
  gatewayConfig,
  type HarnessSettings,
  RecordingClock,
  silentLogger,
  waitForState,
} from "./fixtures/upstream-harness.js";

const SNAPSHOT: Tool[] = [
  {
    name: "echo",
    description: "from the fleet",
    inputSchema: { type: "object" },
  },
  {
    name: "ghost",
    description: "the fleet saw it; this pod's server does not have it",
    inputSchema: { type: "object" },
  },
];

let server: FaultHttpServer | undefined;
let manager: ReturnType<typeof createUpstreamManager> | undefined;

afterEach(async () => {
  await manager?.close();
  await server?.close();
  manager = undefined;
  server = undefined;
});

async function start(
  s: FaultHttpServer,
  settings: HarnessSettings = {},
): Promise<{
  origins: ToolsOrigin[];
  clock: RecordingClock;
  checks: HealthCheck[];
}> {
  const origins: ToolsOrigin[] = [];
  const checks: HealthCheck[] = [];
  const clock = new RecordingClock(10);
  manager = createUpstreamManager({
    logger: silentLogger(),
    // Backoff and the call's wait run ten times faster than configured.
    clock,
    snapshotTools: (name) => (name === "svc" ? SNAPSHOT : undefined),
    onTools: (_name, _tools, origin) => origins.push(origin),
    onHealthCheck: (_status, check) => checks.push(check),
  });
  // Resolves once the connect has started (it continues in the background).
  await manager.apply(
    gatewayConfig(
      [
        {
          name: "svc",
          connection_type: "http",
          connection_string: s.mcpUrl,
          tools_to_execute: ["*"],
        },
      ],
      settings,
    ),
  );
  return { origins, clock, checks };
}

const names = (): string[] => manager!.registry.list().map((e) => e.name);

describe("snapshot tools during the first connect", () => {
  it("offers the snapshot's tools while the first connect runs, lets a call wait for it, then serves the server's own list", async () => {
    server = await startFaultHttp();
    await server.stop();
    const { origins } = await start(server);
    await vi.waitFor(() => expect(names()).toEqual(["svc_echo", "svc_ghost"]));
    expect(manager!.get("svc")?.state).toBe("connecting");
    const pending = manager!.registry.call(
      manager!.registry.resolve("svc_echo")!,
      { text: "waited" },
    );
    await server.listen();
    expect(firstText(await pending)).toBe(
      JSON.stringify({ tool: "echo", args: { text: "waited" } }),
    );
    expect(names()).not.toContain("svc_ghost");
    expect(names()).toContain("svc_fault_set");
    expect(origins).toEqual(["connect"]);
    // Local truth wins for good: a snapshot change no longer touches this client's offer.
    manager!.snapshotChanged("svc");
    expect(names()).not.toContain("svc_ghost");
  });

  it("drops the snapshot's tools when the first connect fails, and the call says why at once", async () => {
    server = await startFaultHttp({ httpStatus: 401 });
    await start(server);
    expect(names()).toEqual(["svc_echo", "svc_ghost"]);
    const result = await manager!.registry.call(
      manager!.registry.resolve("svc_echo")!,
      {},
    );
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/MCP client "svc" is error/);
    expect(manager!.get("svc")?.state).toBe("error");
    expect(names()).toEqual([]);
  });

  it("waits for the first connect no longer than the tool timeout", async () => {
    server = await startFaultHttp();
    await server.stop();
    const { clock } = await start(server, { toolTimeout: "2s" });
    const result = await manager!.registry.call(
      manager!.registry.resolve("svc_echo")!,
      {},
    );
    expect(result.isError).toBe(true);
    expect(firstText(result)).toMatch(/MCP client "svc" is connecting/);
    expect(clock.waits).toContain(2000);
    expect(manager!.get("svc")?.state).toBe("connecting");
  });
});

describe("fleet-driven checks and re-listings", () => {
  it("counts an on-demand health check like a scheduled one: failures add up to a disconnect, a success resets them", async () => {
    server = await startFaultHttp();
    const { checks } = await start(server, {
      checkInterval: "1h",
      maxFailures: 2,
    });
    await waitForState(manager!, "svc", "connected");
    server.set({ pings: "error" });
    await manager!.checkNow("svc");
    expect(manager!.get("svc")).toMatchObject({
      state: "connected",
      consecutiveFailures: 1,
    });
    server.set({ pings: "answer" });
    await manager!.checkNow("svc");
    expect(manager!.get("svc")).toMatchObject({
      state: "connected",
      consecutiveFailures: 0,
    });
    server.set({ pings: "error" });
    await manager!.checkNow("svc");
    await manager!.checkNow("svc");
    expect(manager!.get("svc")?.state).toBe("disconnected");
    expect(checks.map((c) => [c.scheduled, c.failure !== undefined])).toEqual([
      [false, true],
      [false, false],
      [false, true],
      [false, true],
    ]);
  });

  it("reports scheduled checks as scheduled, with the failure text", async () => {
    server = await startFaultHttp({ pings: "error" });
    const { checks } = await start(server, {
      checkInterval: "5s",
      maxFailures: 3,
    });
    await waitForState(manager!, "svc", "disconnected");
    expect(checks.slice(0, 3)).toEqual(
      [0, 1, 2].map(() => ({
        scheduled: true,
        failure: expect.stringMatching(/ping refused/) as unknown,
      })),
    );
  });

  it("re-lists a client's tools from its own connection when the fleet asks, and tells whether the upstream or the fleet caused a listing", async () => {
    server = await startFaultHttp();
    const { origins } = await start(server, { checkInterval: "1h" });
    await waitForState(manager!, "svc", "connected");
    server.control.state = {
      ...server.control.state,
      tools: ["echo", "fresh"],
    };
    expect(names()).not.toContain("svc_fresh");
    manager!.refreshTools(manager!.idOf("svc")!);
    await vi.waitFor(() => expect(names()).toContain("svc_fresh"));
    expect(origins).toEqual(["connect", "fleet"]);
    server.set({ tools: ["echo", "fresh", "newer"] });
    await vi.waitFor(() => expect(names()).toContain("svc_newer"));
    expect(origins).toEqual(["connect", "fleet", "upstream"]);
  });
});
