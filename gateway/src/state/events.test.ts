import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";

import type { ClusterEvents } from "./events.js";
import { createClusterEvents } from "./events.js";
import type { TestFleet } from "./testing.js";
import { fleets } from "./testing.js";

const logger = pino({ level: "silent" });

describe.each(fleets)("cluster events (%s store)", (_kind, makeFleet) => {
  let fleet: TestFleet;
  const services: ClusterEvents[] = [];
  const pod = async (podId: string): Promise<ClusterEvents> => {
    const s = createClusterEvents({ store: fleet.open(podId), podId, logger });
    services.push(s);
    await s.start();
    return s;
  };

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await fleet.close();
  });

  it("fans a tools-changed event out to every pod, flagging the publisher's own copy as local", async () => {
    fleet = makeFleet();
    const [a, b, c] = [
      await pod("pod-a"),
      await pod("pod-b"),
      await pod("pod-c"),
    ];
    const seen = [a, b, c].map(
      (s) => new Promise((resolve) => s.onToolsChanged(resolve)),
    );
    await a.publishToolsChanged("github");
    expect(await Promise.all(seen)).toEqual([
      { client: "github", podId: "pod-a", local: true },
      { client: "github", podId: "pod-a", local: false },
      { client: "github", podId: "pod-a", local: false },
    ]);
  });

  it("stops delivering to a listener that unsubscribed", async () => {
    fleet = makeFleet();
    const [a, b] = [await pod("pod-a"), await pod("pod-b")];
    const removed: string[] = [];
    const off = b.onToolsChanged((e) => removed.push(e.client));
    const kept = new Promise((resolve) =>
      b.onToolsChanged((e) => e.client === "second" && resolve(e.client)),
    );
    off();
    await a.publishToolsChanged("first");
    await a.publishToolsChanged("second");
    expect(await kept).toBe("second");
    expect(removed).toEqual([]);
  });
});
