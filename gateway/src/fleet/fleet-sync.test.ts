import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { pino } from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { RegistryChange } from "../registry/types.js";
import {
  createClusterEvents,
  createFleetHealth,
  createStateStore,
  createToolSnapshots,
  MemoryHub,
} from "../state/index.js";
import type { ClientStatus } from "../upstream/types.js";
import {
  createFleetSync,
  type FleetSync,
  type FleetUpstreams,
} from "./fleet-sync.js";

const logger = pino({ level: "silent" });
const ECHO: Tool = { name: "echo", inputSchema: { type: "object" } };

interface Pod {
  sync: FleetSync;
  calls: string[];
  registryListeners: Set<(c: RegistryChange) => void>;
  close(): Promise<void>;
}

const open: Pod[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.close()));
});

/** A fleet sync on a memory store shared through `hub`, attached to a recording upstream. */
async function pod(hub: MemoryHub, podId: string): Promise<Pod> {
  const store = createStateStore({
    logger,
    namespace: "t",
    podId,
    memoryHub: hub,
  });
  const health = createFleetHealth({ store, podId, logger });
  const sync = createFleetSync({
    store,
    podId,
    snapshots: createToolSnapshots({ store, podId, logger }),
    events: createClusterEvents({ store, podId, logger }),
    health,
    logger,
  });
  const calls: string[] = [];
  const registryListeners = new Set<(c: RegistryChange) => void>();
  const upstream: FleetUpstreams = {
    idOf: (name) => (name === "svc" ? "svc-id" : undefined),
    checkNow: (id) => {
      calls.push(`check ${id}`);
      return Promise.resolve();
    },
    refreshTools: (id) => calls.push(`refresh ${id}`),
    snapshotChanged: (name) => calls.push(`snapshot ${name}`),
    registry: {
      onChange: (l) => {
        registryListeners.add(l);
        return () => registryListeners.delete(l);
      },
    },
  };
  sync.attach(upstream);
  await health.start();
  await sync.start();
  const p: Pod = {
    sync,
    calls,
    registryListeners,
    async close() {
      await sync.close();
      await health.close();
      await store.close();
    },
  };
  open.push(p);
  return p;
}

const status = (over: Partial<ClientStatus> = {}): ClientStatus => ({
  id: "svc-id",
  name: "svc",
  connectionType: "http",
  state: "connected",
  since: new Date().toISOString(),
  tools: ["echo"],
  consecutiveFailures: 1,
  ...over,
});

describe("fleet sync", () => {
  it("serves another pod's published tools as snapshot tools, skipping invalid definitions", async () => {
    const hub = new MemoryHub();
    const [a, b] = [await pod(hub, "a"), await pod(hub, "b")];
    a.sync.onTools(
      "svc",
      [
        ECHO,
        { name: "broken", inputSchema: { type: "string" } } as unknown as Tool,
      ],
      "connect",
    );
    await vi.waitFor(() => expect(b.sync.snapshotTools("svc")).toEqual([ECHO]));
    expect(b.calls).toContain("snapshot svc");
    expect(b.sync.snapshotTools("other")).toBeUndefined();
  });

  it("makes other pods re-list a client after an upstream list_changed, but never re-announces a fleet-caused re-listing", async () => {
    const hub = new MemoryHub();
    const [a, b] = [await pod(hub, "a"), await pod(hub, "b")];
    a.sync.onTools("svc", [ECHO], "upstream");
    await vi.waitFor(() => expect(b.calls).toContain("refresh svc-id"));
    expect(a.calls).not.toContain("refresh svc-id");
    b.sync.onTools("svc", [ECHO], "fleet");
    await new Promise((r) => setTimeout(r, 20));
    expect(a.calls).not.toContain("refresh svc-id");
  });

  it("asks the other pods to check a client at once after a failed scheduled check, not after an on-demand one", async () => {
    const hub = new MemoryHub();
    const [a, b] = [await pod(hub, "a"), await pod(hub, "b")];
    a.sync.onHealthCheck(status(), { scheduled: false, failure: "no answer" });
    a.sync.onHealthCheck(status({ consecutiveFailures: 0 }), {
      scheduled: true,
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(b.calls.filter((c) => c.startsWith("check"))).toEqual([]);
    a.sync.onHealthCheck(status(), { scheduled: true, failure: "no answer" });
    await vi.waitFor(() => expect(b.calls).toContain("check svc-id"));
    expect(a.calls.filter((c) => c.startsWith("check"))).toEqual([]);
  });

  it("removes a client's snapshot fleet-wide when it leaves a pod's registry", async () => {
    const hub = new MemoryHub();
    const [a, b] = [await pod(hub, "a"), await pod(hub, "b")];
    a.sync.onTools("svc", [ECHO], "connect");
    await vi.waitFor(() => expect(b.sync.snapshotTools("svc")).toEqual([ECHO]));
    for (const l of a.registryListeners)
      l({ kind: "client-removed", client: "svc" });
    await vi.waitFor(() => expect(b.sync.snapshotTools("svc")).toBeUndefined());
  });
});
