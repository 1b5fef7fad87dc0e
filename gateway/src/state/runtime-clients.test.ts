import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { ClientConfig } from "../config/schema.js";
import { ClientConfig as ClientConfigSchema } from "../config/schema.js";
import { keys } from "./keys.js";
import type { RuntimeClients } from "./runtime-clients.js";
import { createRuntimeClients } from "./runtime-clients.js";
import { createSealer } from "./sealing.js";
import type { TestFleet } from "./testing.js";
import { fleets } from "./testing.js";

const logger = pino({ level: "silent" });
const client = (name: string, url = "http://127.0.0.1:9/mcp"): ClientConfig =>
  ClientConfigSchema.parse({
    name,
    connection_type: "http",
    connection_string: url,
    tools_to_execute: ["*"],
  });

/** The next set a service reports through onChange that satisfies `until`. */
const nextSet = (
  s: RuntimeClients,
  until: (names: string[]) => boolean,
): Promise<string[]> =>
  new Promise((resolve) => {
    const off = s.onChange((clients) => {
      const names = clients.map(
        (c) => `${c.name}@${c.connection_string ?? ""}`,
      );
      if (until(names)) {
        off();
        resolve(names);
      }
    });
  });

describe.each(fleets)("runtime clients (%s store)", (_kind, makeFleet) => {
  let fleet: TestFleet;
  const services: RuntimeClients[] = [];
  const pod = async (
    podId: string,
    resyncIntervalMs?: number,
  ): Promise<RuntimeClients> => {
    const s = createRuntimeClients({
      store: fleet.open(podId),
      podId,
      logger,
      ...(resyncIntervalMs ? { resyncIntervalMs } : {}),
    });
    services.push(s);
    await s.start();
    return s;
  };

  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(services.splice(0).map((s) => s.close()));
    await fleet.close();
  });

  it("brings a client created on one pod to every other pod with the full set", async () => {
    fleet = makeFleet();
    const [a, b] = [await pod("pod-a"), await pod("pod-b")];
    await a.upsert(client("jira"));
    const onB = nextSet(b, (n) => n.length === 2);
    await a.upsert(client("github"));
    expect(await onB).toEqual([
      "github@http://127.0.0.1:9/mcp",
      "jira@http://127.0.0.1:9/mcp",
    ]);
    expect(b.get("github")).toEqual(client("github"));
    expect(a.list()).toEqual(b.list());
  });

  it("brings edits and deletions to the other pods", async () => {
    fleet = makeFleet();
    const [a, b] = [await pod("pod-a"), await pod("pod-b")];
    const created = nextSet(b, (n) => n.length === 1);
    await a.upsert(client("github"));
    await created;
    const edited = nextSet(b, (n) => n[0] === "github@http://127.0.0.1:8/mcp");
    await a.upsert(client("github", "http://127.0.0.1:8/mcp"));
    await edited;
    const deleted = nextSet(b, (n) => n.length === 0);
    expect(await a.remove("github")).toBe(true);
    await deleted;
    expect(await a.remove("github")).toBe(false);
  });

  it("gives a starting pod the stored set, and an empty set when there is none", async () => {
    fleet = makeFleet();
    const first = createRuntimeClients({
      store: fleet.open("pod-a"),
      podId: "pod-a",
      logger,
    });
    services.push(first);
    const initial = nextSet(first, () => true);
    await first.start();
    expect(await initial).toEqual([]);
    await first.upsert(client("github"));
    const late = createRuntimeClients({
      store: fleet.open("pod-c"),
      podId: "pod-c",
      logger,
    });
    services.push(late);
    const loaded = nextSet(late, () => true);
    await late.start();
    expect(await loaded).toEqual(["github@http://127.0.0.1:9/mcp"]);
  });

  it("heals a missed change message with the periodic resync", async () => {
    fleet = makeFleet();
    // Only the interval is faked: Redis client timers stay real.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const b = await pod("pod-b", 5_000);
    // Written behind the service's back: no change message.
    await fleet.open("pod-x").set(keys.runtimeClient("silent"), {
      config: client("silent"),
      updatedAt: new Date().toISOString(),
      podId: "pod-x",
    });
    expect(b.list()).toEqual([]);
    const healed = nextSet(b, (n) => n.length === 1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(await healed).toEqual(["silent@http://127.0.0.1:9/mcp"]);
  });

  it("stores configs sealed when an encryption key is set, and pods with the key read them", async () => {
    fleet = makeFleet();
    const sealer = createSealer("a shared encryption key");
    const secret = ClientConfigSchema.parse({
      name: "secretive",
      connection_type: "http",
      connection_string: "http://127.0.0.1:9/mcp",
      auth_type: "headers",
      headers: { Authorization: "Bearer very-secret" },
    });
    const a = createRuntimeClients({
      store: fleet.open("pod-a"),
      podId: "pod-a",
      logger,
      sealer,
    });
    const b = createRuntimeClients({
      store: fleet.open("pod-b"),
      podId: "pod-b",
      logger,
      sealer,
    });
    services.push(a, b);
    await Promise.all([a.start(), b.start()]);
    const onB = nextSet(b, (n) => n.length === 1);
    await a.upsert(secret);
    await onB;
    expect(b.get("secretive")).toEqual(secret);
    const raw = await fleet.open("reader").get(keys.runtimeClient("secretive"));
    expect(JSON.stringify(raw?.value)).not.toContain("very-secret");
  });

  it("skips an invalid stored record and still loads the others", async () => {
    fleet = makeFleet();
    const writer = fleet.open("pod-x");
    await writer.set(keys.runtimeClient("broken"), {
      config: { name: "has-hyphen" },
      updatedAt: "x",
      podId: "pod-x",
    });
    await writer.set(keys.runtimeClient("good"), {
      config: client("good"),
      updatedAt: "x",
      podId: "pod-x",
    });
    const b = await pod("pod-b");
    expect(b.list().map((c) => c.name)).toEqual(["good"]);
  });
});
