import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { Informer } from "../src/kube/informer.js";
import type { Operator } from "../src/operator.js";
import { MemoryStatusSource } from "../src/status/status-source.js";
import { ApiServerDouble } from "./api-server-double.js";
import {
  CLIENTS,
  CONFIGMAPS,
  eventually,
  LEASES,
  mcpClient,
  renderedConfig,
  startOperator,
  TARGET,
} from "./helpers.js";

const http = (url: string) => ({
  connectionType: "http",
  connectionString: url,
});

interface Obj {
  metadata: { name: string; namespace?: string; resourceVersion?: string };
}

describe("informer against the API server double", () => {
  let api: ApiServerDouble;
  let informer: Informer<Obj> | undefined;
  let lists = 0;

  beforeEach(async () => {
    api = new ApiServerDouble();
    await api.start();
    lists = 0;
  });

  afterEach(async () => {
    informer?.stop();
    await api.stop();
  });

  const startInformer = (events: string[]) => {
    const kc = api.kubeConfig();
    informer = new Informer<Obj>(kc, {
      resource: "mcpclients",
      path: CLIENTS,
      list: () => {
        lists++;
        const items = api.list(CLIENTS) as unknown as Obj[];
        return Promise.resolve({
          items,
          resourceVersion: String(api.resourceVersion),
        });
      },
      onEvent: (type, obj) => events.push(`${type} ${obj.metadata.name}`),
      backoff: { baseMs: 1, maxMs: 5, jitter: 0.5 },
    });
    informer.start();
    return informer;
  };

  it("resumes a cut watch stream from the last resourceVersion without relisting", async () => {
    api.apply(CLIENTS, mcpClient("a", http("https://a.example")));
    const events: string[] = [];
    const inf = startInformer(events);
    await eventually(() => expect(api.openWatches).toBe(1));
    api.apply(CLIENTS, mcpClient("b", http("https://b.example")));
    await eventually(() => expect(events).toEqual(["add a", "add b"]));
    const rvBefore = inf.lastResourceVersion;
    api.dropWatches();
    api.apply(CLIENTS, mcpClient("c", http("https://c.example")));
    await eventually(() => expect(events).toEqual(["add a", "add b", "add c"]));
    const watches = api.requests.filter((r) => r.watch);
    expect(watches.length).toBeGreaterThanOrEqual(2);
    const resumed =
      api.requestUrls.filter((u) => u.includes("watch=true"))[1] ?? "";
    expect(
      new URL(`http://x${resumed}`).searchParams.get("resourceVersion"),
    ).toBe(rvBefore);
    expect(lists).toBe(1);
    expect(Number(inf.lastResourceVersion)).toBeGreaterThan(Number(rvBefore));
  });

  it("advances its resourceVersion on bookmarks", async () => {
    const events: string[] = [];
    const inf = startInformer(events);
    await eventually(() => expect(api.openWatches).toBe(1));
    api.apply("/api/v1/namespaces/tools/configmaps", {
      metadata: { name: "unrelated" },
    });
    const rv = String(api.resourceVersion);
    expect(inf.lastResourceVersion).not.toBe(rv);
    api.bookmark();
    await eventually(() => expect(inf.lastResourceVersion).toBe(rv));
    expect(events).toEqual([]);
  });

  it.each([
    ["a 410 ERROR event", false],
    ["an HTTP 410 response", true],
  ])(
    "relists after %s and emits what changed while it was away",
    async (_label, goneAsHttp) => {
      api.goneAsHttp = goneAsHttp;
      api.apply(CLIENTS, mcpClient("a", http("https://a.example")));
      api.apply(CLIENTS, mcpClient("b", http("https://b.example")));
      const events: string[] = [];
      startInformer(events);
      await eventually(() => expect(api.openWatches).toBe(1));
      api.dropWatches();
      // While no watch is open: a change, a delete, an add, then history is compacted away.
      api.apply(CLIENTS, mcpClient("a", http("https://a2.example")));
      api.remove(`${CLIENTS}/b`);
      api.apply(CLIENTS, mcpClient("c", http("https://c.example")));
      api.compact();
      await eventually(() =>
        expect(events.slice(2).sort()).toEqual([
          "add c",
          "delete b",
          "update a",
        ]),
      );
      expect(lists).toBe(2);
    },
  );
});

describe("operator watch resilience and leader election", () => {
  let api: ApiServerDouble;
  const running: Operator[] = [];

  beforeEach(async () => {
    api = new ApiServerDouble();
    await api.start();
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((o) => o.stop()));
    await api.stop();
  });

  const start = (user: string, leaseDurationSeconds = 2) => {
    const op = startOperator(api, new MemoryStatusSource(), user, {
      leaseDurationSeconds,
    });
    running.push(op);
    return op;
  };

  it("keeps the config current when its watch streams are killed mid-way and history expires", async () => {
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    start("operator");
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["alpha"],
      ),
    );
    api.dropWatches();
    api.apply(CLIENTS, mcpClient("beta", http("https://b.example/mcp")));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["alpha", "beta"],
      ),
    );
    api.dropWatches();
    api.remove(`${CLIENTS}/alpha`);
    api.compact();
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["beta"],
      ),
    );
  });

  it("lets only the Lease holder write, and hands over when the leader stops", async () => {
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    const first = start("first");
    await eventually(() => expect(first.isLeader).toBe(true));
    const second = start("second");
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(1),
    );
    api.apply(CLIENTS, mcpClient("beta", http("https://b.example/mcp")));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(2),
    );
    // Let the standby campaign a few rounds against the held Lease.
    await eventually(() =>
      expect(
        api.requests.filter(
          (r) => r.user === "second" && r.path.includes("/leases"),
        ).length,
      ).toBeGreaterThan(3),
    );
    expect(second.isLeader).toBe(false);
    expect(
      api.writes({ user: "second" }).filter((w) => !w.path.includes("/leases")),
    ).toEqual([]);
    expect(
      api.writes({ user: "first", pathIncludes: CONFIGMAPS }).length,
    ).toBeGreaterThan(0);
    expect(api.get(`${LEASES}/toolgate-operator`)?.spec).toMatchObject({
      holderIdentity: "first",
    });

    await first.stop();
    running.splice(running.indexOf(first), 1);
    await eventually(() => expect(second.isLeader).toBe(true));
    expect(api.get(`${LEASES}/toolgate-operator`)?.spec).toMatchObject({
      holderIdentity: "second",
      leaseTransitions: 1,
    });
    await eventually(() => expect(second.controller?.synced).toBe(true));
    api.apply(CLIENTS, mcpClient("gamma", http("https://c.example/mcp")));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["alpha", "beta", "gamma"],
      ),
    );
    expect(
      api.writes({
        user: "second",
        pathIncludes: `${CONFIGMAPS}/${TARGET.configMap}`,
      }).length,
    ).toBeGreaterThan(0);
  });

  it("takes over when the leader is cut off from the API server, and the old leader stops writing", async () => {
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    const first = start("first", 1);
    await eventually(() => expect(first.isLeader).toBe(true));
    const second = start("second", 1);
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(1),
    );
    api.blockedUsers.add("first");
    await eventually(() => expect(second.isLeader).toBe(true));
    await eventually(() => expect(first.isLeader).toBe(false));
    api.apply(CLIENTS, mcpClient("beta", http("https://b.example/mcp")));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(2),
    );
    expect(
      api.writes({
        user: "second",
        pathIncludes: `${CONFIGMAPS}/${TARGET.configMap}`,
      }).length,
    ).toBeGreaterThan(0);
    const firstWrites = api.writes({ user: "first" }).length;
    api.blockedUsers.delete("first");
    // Unblocked, the old leader finds the Lease held and stays a standby.
    await eventually(() =>
      expect(
        api.requests.filter(
          (r) =>
            r.user === "first" &&
            r.status === 200 &&
            r.path.includes("/leases"),
        ).length,
      ).toBeGreaterThan(2),
    );
    expect(first.isLeader).toBe(false);
    expect(
      api
        .writes({ user: "first" })
        .slice(firstWrites)
        .filter((w) => w.status < 300 && !w.path.includes("/leases")),
    ).toEqual([]);
  });
});
