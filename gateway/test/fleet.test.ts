/**
 * Three gateways on the shared Redis (127.0.0.1:6379, a namespace of their own per run),
 * driven over HTTP: runtime clients reach every pod, a cold pod serves the fleet's tool list
 * before its own connection is up, a list change on one pod reaches another pod's SSE stream,
 * the fleet health view, and a failure one pod sees is re-checked at once by the others.
 *
 * Pod A checks health every second; B and C every hour, so anything B or C learn about a dead
 * upstream within seconds they learned from A's event, not from their own schedule.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import type {
  ClientConfigInput,
  GatewayConfigInput,
} from "../src/config/schema.js";
import {
  type FaultHttpServer,
  startFaultHttp,
} from "./fixtures/fault-server.js";
import type { RunningGateway } from "./fixtures/gateway-app.js";
import { faultServerArgs, faultStdio } from "./fixtures/servers.js";
import {
  api,
  dropNamespace,
  type Json,
  openSse,
  rpc,
  SHARED_REDIS,
  startPod,
  toolNames,
  uniqueNamespace,
} from "./fleet-harness.js";

const namespace = uniqueNamespace();
const pods: RunningGateway[] = [];
let svc: FaultHttpServer;
let lcA: FaultHttpServer;
let lcB: FaultHttpServer;

function podConfig(
  checkInterval: string,
  clients: ClientConfigInput[],
): GatewayConfigInput {
  return {
    mcp: {
      client_configs: clients,
      health_monitor_config: {
        check_interval: checkInterval,
        max_consecutive_failures: 2,
      },
    },
  };
}

const http = (name: string, url: string): ClientConfigInput => ({
  name,
  connection_type: "http",
  connection_string: url,
  tools_to_execute: ["*"],
});

/** The fault fixture over stdio, started only after `seconds` (a slow first connect). */
function slowFaultStdio(name: string, seconds: number): ClientConfigInput {
  const args = faultServerArgs("stdio")
    .map((a) => `'${a}'`)
    .join(" ");
  return {
    name,
    connection_type: "stdio",
    stdio_config: {
      command: "sh",
      args: ["-c", `sleep ${seconds}; exec '${process.execPath}' ${args}`],
    },
    tools_to_execute: ["*"],
  };
}

async function waitConnected(pod: RunningGateway, id: string): Promise<void> {
  await pod.runtime.upstream.waitConnected(id, 30_000);
}

beforeAll(async () => {
  [svc, lcA, lcB] = await Promise.all([
    startFaultHttp(),
    startFaultHttp(),
    startFaultHttp(),
  ]);
  // "lc" is one client name behind two servers, so B can learn of A's change only through the fleet.
  pods.push(
    await startPod(
      SHARED_REDIS,
      namespace,
      "pod-a",
      podConfig("1s", [faultStdio("cold"), http("lc", lcA.mcpUrl)]),
    ),
  );
  pods.push(
    await startPod(
      SHARED_REDIS,
      namespace,
      "pod-b",
      podConfig("1h", [faultStdio("cold"), http("lc", lcB.mcpUrl)]),
    ),
  );
  await Promise.all(
    pods.flatMap((p) => [waitConnected(p, "cold"), waitConnected(p, "lc")]),
  );
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(pods.map((p) => p.close()));
  await Promise.allSettled([svc, lcA, lcB].map((s) => s?.close()));
  await dropNamespace(SHARED_REDIS, namespace);
});

describe("several gateway pods on one Redis", () => {
  it("makes a client created through the API on pod A callable on pod B within 1 s", async () => {
    const [a, b] = pods as [RunningGateway, RunningGateway];
    const created = await api(
      a.base,
      "POST",
      "/api/mcp/client",
      http("svc", svc.mcpUrl),
    );
    expect(created.status).toBe(201);
    await vi.waitFor(
      async () => {
        const r = await rpc(b.base, "tools/call", {
          name: "svc_echo",
          arguments: { text: "via B" },
        });
        expect(r.result?.isError).toBeFalsy();
        expect(JSON.parse(r.result.content[0].text as string)).toEqual({
          tool: "echo",
          args: { text: "via B" },
        });
      },
      { timeout: 1000, interval: 25 },
    );
  });

  it("shows every pod's view of a client next to the local state on GET /api/mcp/clients and /api/mcp/client/:id", async () => {
    const [a, b] = pods as [RunningGateway, RunningGateway];
    await waitConnected(a, "svc");
    await waitConnected(b, "svc");
    await vi.waitFor(async () => {
      const list = await api(b.base, "GET", "/api/mcp/clients");
      const view = (list.json.clients as Json[]).find((c) => c.id === "svc");
      expect(view.state).toBe("connected");
      expect(view.fleet.available).toBe(true);
      expect(view.fleet.summary).toMatchObject({
        state: "connected",
        pods: 2,
        connected: 2,
        failing: 0,
      });
      expect((view.fleet.pods as Json[]).map((p) => p.pod)).toEqual([
        "pod-a",
        "pod-b",
      ]);
    });
    const one = await api(a.base, "GET", "/api/mcp/client/cold");
    expect(one.json.fleet.summary).toMatchObject({
      state: "connected",
      pods: 2,
    });
    expect(one.json.fleet.pods[0]).toMatchObject({
      pod: "pod-a",
      state: "connected",
      tools: expect.arrayContaining(["echo"]) as unknown,
    });
  });

  it("lets a cold pod serve tools/list from the snapshots before its own connection is up, and a call waits for that connection", async () => {
    const c = await startPod(
      SHARED_REDIS,
      namespace,
      "pod-c",
      podConfig("1h", [slowFaultStdio("cold", 2)]),
    );
    pods.push(c);
    expect(c.runtime.upstream.get("cold")?.state).toBe("connecting");
    const names = await toolNames(c.base);
    expect(names).toEqual(
      expect.arrayContaining(["cold_echo", "cold_slow", "cold_fault_set"]),
    );
    expect(c.runtime.upstream.get("cold")?.state).toBe("connecting");
    const call = await rpc(c.base, "tools/call", {
      name: "cold_echo",
      arguments: { text: "cold" },
    });
    expect(call.result?.isError).toBeFalsy();
    expect(c.runtime.upstream.get("cold")?.state).toBe("connected");
  }, 30_000);

  it("reaches the SSE streams of pod B when the tool list changes on pod A's upstream", async () => {
    const b = pods[1] as RunningGateway;
    const stream = await openSse(b.base);
    try {
      // B's own server changes silently (no list_changed): only the fleet event can tell B to re-list.
      lcB.control.state = { ...lcB.control.state, tools: ["echo", "added"] };
      lcA.set({ tools: ["echo", "added"] });
      await vi.waitFor(
        () =>
          expect(
            stream.events.some(
              (e) =>
                JSON.parse(e).method === "notifications/tools/list_changed",
            ),
          ).toBe(true),
        { timeout: 5000 },
      );
      expect(await toolNames(b.base)).toContain("lc_added");
    } finally {
      await stream.close();
    }
  });

  it("reports an upstream killed on every pod within one check interval, the others re-checking at once", async () => {
    const [a, b, c] = pods as [RunningGateway, RunningGateway, RunningGateway];
    await Promise.all(pods.map((p) => waitConnected(p, "svc")));
    await svc.stop();
    await vi.waitFor(
      async () => {
        const view = (await api(c.base, "GET", "/api/mcp/client/svc")).json;
        expect(view.fleet.summary).toMatchObject({
          pods: 3,
          connected: 0,
          failing: 3,
        });
      },
      { timeout: 8000, interval: 100 },
    );
    // B and C check every hour: they learned of it from A's event.
    for (const p of [a, b, c])
      expect(p.runtime.upstream.get("svc")?.state).not.toBe("connected");
  }, 20_000);
});
