import { Redis } from "ioredis";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";

import { keys } from "./keys.js";
import type { TestFleet } from "./testing.js";
import { fleets, TEST_REDIS_URL } from "./testing.js";
import type { ToolSnapshots } from "./tool-snapshots.js";
import { createToolSnapshots, toolsHash } from "./tool-snapshots.js";
import type { StateStore } from "./types.js";

const logger = pino({ level: "silent" });
const echo = {
  name: "echo",
  description: "Echoes",
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
};
const add = {
  name: "add",
  inputSchema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
  },
};

describe.each(fleets)("tool snapshots (%s store)", (_kind, makeFleet) => {
  let fleet: TestFleet;
  const services: ToolSnapshots[] = [];
  const pod = (
    podId: string,
    store: StateStore = fleet.open(podId),
  ): ToolSnapshots => {
    const s = createToolSnapshots({ store, podId, logger });
    services.push(s);
    return s;
  };

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await fleet.close();
  });

  const setup = async (): Promise<[ToolSnapshots, ToolSnapshots]> => {
    fleet = makeFleet();
    const a = pod("pod-a");
    const b = pod("pod-b");
    await Promise.all([a.start(), b.start()]);
    return [a, b];
  };

  it("lets a cold pod serve the tool lists other pods published, before any connection of its own", async () => {
    const [a] = await setup();
    expect(await a.publish("github", [echo, add])).toBe(true);
    const cold = pod("pod-c");
    await cold.start();
    expect(cold.all()).toEqual([
      expect.objectContaining({
        client: "github",
        hash: toolsHash([echo, add]),
        tools: [echo, add],
        podId: "pod-a",
      }),
    ]);
  });

  it("brings a changed tool list to the other pods' local view", async () => {
    const [a, b] = await setup();
    const changed = new Promise((resolve) =>
      b.onChange((client, snap) => resolve([client, snap?.tools])),
    );
    await a.publish("github", [echo]);
    expect(await changed).toEqual(["github", [echo]]);
    expect(b.get("github")?.hash).toBe(toolsHash([echo]));
  });

  it("writes nothing when the published list has the same content, in any key order", async () => {
    const [a] = await setup();
    await a.publish("github", [echo, add]);
    const store = fleet.open("pod-probe");
    const before = (await store.get(keys.snapshot("github")))?.rev;
    const reordered = [
      {
        inputSchema: echo.inputSchema,
        description: echo.description,
        name: "echo",
      },
      add,
    ];
    expect(await a.publish("github", reordered)).toBe(false);
    expect((await store.get(keys.snapshot("github")))?.rev).toBe(before);
  });

  it("serves repeated reads and unchanged publishes without a single store command", async () => {
    fleet = makeFleet();
    const store = fleet.open("pod-a");
    const a = pod("pod-a", store);
    await a.start();
    await a.publish("github", [echo, add]);
    const before = store.stats().commands;
    for (let i = 0; i < 1000; i++) {
      a.get("github");
      a.all();
    }
    await a.publish("github", [echo, add]);
    expect(store.stats().commands - before).toBe(0);
  });

  it("removes a deleted client's snapshot on every pod", async () => {
    const [a, b] = await setup();
    await a.publish("github", [echo]);
    await b.resync();
    const gone = new Promise((resolve) =>
      b.onChange((client, snap) => snap === undefined && resolve(client)),
    );
    await a.remove("github");
    expect(await gone).toBe("github");
    expect(b.all()).toEqual([]);
  });

  it("heals a missed change with a resync", async () => {
    const [, b] = await setup();
    const writer = fleet.open("pod-x");
    await writer.set(keys.snapshot("jira"), {
      client: "jira",
      hash: "h1",
      tools: [add],
      updatedAt: new Date().toISOString(),
      podId: "pod-x",
    });
    expect(b.get("jira")).toBeUndefined();
    await b.resync();
    expect(b.get("jira")?.tools).toEqual([add]);
  });
});

describe("tool snapshots on Redis, seen by MONITOR", () => {
  it("sends no command at all on repeated reads and unchanged publishes", async () => {
    const fleet = fleets[1][1]();
    const store = fleet.open("pod-a");
    const snaps = createToolSnapshots({ store, podId: "pod-a", logger });
    const monitor = await new Redis(TEST_REDIS_URL).monitor();
    const seen: string[] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args.some((a) => a.includes(fleet.namespace)))
        seen.push(args.join(" "));
    });
    try {
      await snaps.start();
      await snaps.publish("github", [echo]);
      const marker = `${fleet.namespace}:marker`;
      const waitFor = (text: string): Promise<void> =>
        new Promise((resolve) => {
          const check = (): void =>
            void (seen.some((s) => s.includes(text))
              ? resolve()
              : setTimeout(check, 10));
          check();
        });
      await store.get("marker-before");
      await waitFor("marker-before");
      const from = seen.length;
      for (let i = 0; i < 500; i++) snaps.all();
      await snaps.publish("github", [echo]);
      await store.get("marker");
      await waitFor(marker);
      expect(seen.slice(from).map((s) => s.toLowerCase())).toEqual([
        `get ${marker}`,
      ]);
    } finally {
      await snaps.close();
      monitor.disconnect();
      await fleet.close();
    }
  });
});
