import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";

import type { ClientHealthInput, FleetHealth } from "./fleet-health.js";
import { createFleetHealth, summarize } from "./fleet-health.js";
import type { ClientHealthReport } from "./keys.js";
import { keys } from "./keys.js";
import type { TestFleet } from "./testing.js";
import { fleets } from "./testing.js";

const logger = pino({ level: "silent" });
const since = "2026-01-01T00:00:00.000Z";
const ok = (client: string, tools: string[] = ["echo"]): ClientHealthInput => ({
  client,
  state: "connected",
  consecutiveFailures: 0,
  tools,
  since,
});
const failed = (client: string, error = "ECONNREFUSED"): ClientHealthInput => ({
  client,
  state: "error",
  consecutiveFailures: 1,
  tools: [],
  since,
  lastError: error,
});

describe.each(fleets)("fleet health (%s store)", (_kind, makeFleet) => {
  let fleet: TestFleet;
  const services: FleetHealth[] = [];
  const pod = async (podId: string, ttlMs = 60_000): Promise<FleetHealth> => {
    const s = createFleetHealth({
      store: fleet.open(podId),
      podId,
      logger,
      ttlMs,
    });
    services.push(s);
    await s.start();
    return s;
  };

  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.close()));
    await fleet.close();
  });

  it("shows each pod's view of each client and a summary", async () => {
    fleet = makeFleet();
    const [a, b] = [await pod("pod-a"), await pod("pod-b")];
    await a.report(ok("github", ["echo", "add"]));
    await b.report(failed("github", "timeout"));
    await b.report(ok("jira"));
    const view = await a.fleet();
    expect(view.map((c) => [c.client, c.summary.state])).toEqual([
      ["github", "degraded"],
      ["jira", "connected"],
    ]);
    const github = await b.client("github");
    expect(
      github.pods.map((p) => [p.pod, p.state, p.toolCount, p.lastError]),
    ).toEqual([
      ["pod-a", "connected", 2, undefined],
      ["pod-b", "error", 0, "timeout"],
    ]);
    expect(github.summary).toEqual({
      state: "degraded",
      pods: 2,
      connected: 1,
      failing: 1,
      toolCount: 2,
      lastError: "timeout",
    });
  });

  it("keeps a live pod's report beyond its TTL and drops it once the pod stops", async () => {
    fleet = makeFleet();
    // A 300 ms TTL is refreshed every 100 ms: the report would need three missed refreshes to lapse.
    const a = await pod("pod-a", 300);
    const b = await pod("pod-b");
    await a.report(ok("github"));
    await b.report(ok("github"));
    // Real time even for memory: TTL and refresh are exercised end to end here.
    await new Promise((r) => setTimeout(r, 700));
    expect((await b.client("github")).summary.pods).toBe(2);
    await a.close();
    await new Promise((r) => setTimeout(r, 600));
    expect((await b.client("github")).pods.map((p) => p.pod)).toEqual([
      "pod-b",
    ]);
  });

  it("removes this pod's report on forget", async () => {
    fleet = makeFleet();
    const a = await pod("pod-a");
    await a.report(ok("github"));
    await a.forget("github");
    expect((await a.client("github")).summary.state).toBe("unknown");
  });

  it("asks the other pods, not itself, to re-check a client that turned failing, once per turn", async () => {
    fleet = makeFleet();
    const [a, b] = [await pod("pod-a"), await pod("pod-b")];
    const onA: string[] = [];
    const onB: string[] = [];
    let marker: () => void = () => undefined;
    const markerSeen = new Promise<void>((r) => (marker = r));
    a.onRecheck((c) => onA.push(c));
    b.onRecheck((c, from) => {
      onB.push(`${c}@${from}`);
      if (c === "marker") marker();
    });
    await a.report(ok("github"));
    await a.report(failed("github"));
    await a.report(failed("github")); // still failing: no new announcement
    await a.report(failed("marker"));
    await markerSeen;
    expect(onB).toEqual(["github@pod-a", "marker@pod-a"]);
    expect(onA).toEqual([]);
  });

  it("stores the report where the operator reads it", async () => {
    fleet = makeFleet();
    const a = await pod("pod-a");
    await a.report(failed("github", "401"));
    const raw = await fleet.open("reader").get(keys.health("github", "pod-a"));
    expect(raw?.value).toMatchObject({
      client: "github",
      pod: "pod-a",
      state: "error",
      consecutiveFailures: 1,
      toolCount: 0,
      tools: [],
      lastError: "401",
    });
  });
});

const report = (
  pod: string,
  state: ClientHealthReport["state"],
  lastCheck = since,
): ClientHealthReport => ({
  client: "c",
  pod,
  state,
  consecutiveFailures: state === "connected" ? 0 : 1,
  lastCheck,
  since,
  toolCount: state === "connected" ? 3 : 0,
  tools: [],
  updatedAt: since,
});

describe("fleet summary", () => {
  it.each([
    ["no reports", [], "unknown"],
    [
      "all connected",
      [report("a", "connected"), report("b", "connected")],
      "connected",
    ],
    [
      "some connected",
      [report("a", "connected"), report("b", "error")],
      "degraded",
    ],
    [
      "none connected, some failing",
      [report("a", "connecting"), report("b", "disconnected")],
      "down",
    ],
    ["none connected, none failing", [report("a", "connecting")], "connecting"],
  ] as const)("calls a fleet with %s %s", (_what, reports, state) => {
    expect(summarize("c", reports).summary.state).toBe(state);
  });

  it("reports the most recent error among the failing pods", () => {
    const older = {
      ...report("a", "error", "2026-01-01T00:00:01.000Z"),
      lastError: "old",
    };
    const newer = {
      ...report("b", "error", "2026-01-01T00:00:02.000Z"),
      lastError: "new",
    };
    expect(summarize("c", [older, newer]).summary.lastError).toBe("new");
  });
});
