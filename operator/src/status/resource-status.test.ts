import { describe, expect, it } from "vitest";

import type { Condition, CustomObject } from "../crds/resources.js";
import {
  mcpClientStatus,
  summarize,
  virtualKeyStatus,
} from "./resource-status.js";
import type { ClientRuntime, PodClientReport } from "./status-source.js";

const now = new Date("2026-01-01T00:10:00Z");
const fresh = "2026-01-01T00:09:50Z";
const stale = "2026-01-01T00:00:00Z";
const pod = (
  p: Partial<PodClientReport> & { pod: string },
): PodClientReport => ({
  state: "connected",
  toolCount: 2,
  tools: ["a", "b"],
  updatedAt: fresh,
  ...p,
});

describe("summarize", () => {
  it.each([
    ["no reports", [], undefined],
    ["only stale reports", [pod({ pod: "x", updatedAt: stale })], undefined],
    [
      "all pods connected",
      [pod({ pod: "x" }), pod({ pod: "y" })],
      { state: "connected", pods: 2, connectedPods: 2, toolCount: 2 },
    ],
    [
      "one pod disconnected (worst state wins)",
      [
        pod({ pod: "x" }),
        pod({
          pod: "y",
          state: "disconnected",
          toolCount: 0,
          tools: [],
          lastError: "ECONNREFUSED",
        }),
      ],
      {
        state: "disconnected",
        pods: 2,
        connectedPods: 1,
        lastError: "ECONNREFUSED",
      },
    ],
    [
      "error beats connecting",
      [
        pod({ pod: "x", state: "connecting" }),
        pod({ pod: "y", state: "error", lastError: "bad" }),
      ],
      { state: "error", connectedPods: 0, toolCount: 0 },
    ],
    [
      "a stale error is ignored",
      [pod({ pod: "x" }), pod({ pod: "y", state: "error", updatedAt: stale })],
      { state: "connected", pods: 1 },
    ],
  ])("folds %s", (_label, pods, expected) => {
    const s = summarize(pods, { now });
    if (expected === undefined) expect(s).toBeUndefined();
    else expect(s).toMatchObject(expected);
  });

  it("caps the tool list and says so", () => {
    const tools = Array.from(
      { length: 60 },
      (_, i) => `t${String(i).padStart(2, "0")}`,
    );
    const s = summarize([pod({ pod: "x", tools, toolCount: 60 })], {
      now,
      toolsCap: 50,
    });
    expect(s?.tools).toHaveLength(50);
    expect(s?.toolsTruncated).toBe(true);
    expect(s?.toolCount).toBe(60);
  });
});

const client = (
  spec: Record<string, unknown> = {
    connectionType: "http",
    connectionString: "https://x",
  },
): CustomObject => ({
  metadata: { name: "c", namespace: "ns", generation: 3 },
  spec,
});
const cond = (s: { conditions?: Condition[] | undefined }, type: string) =>
  s.conditions?.find((c) => c.type === type);

describe("mcpClientStatus", () => {
  it.each<
    [string, ClientRuntime | undefined, Record<string, unknown>, string, string]
  >([
    [
      "no reports yet",
      { pods: [] },
      { state: "pending", toolCount: 0 },
      "Unknown",
      "NoReports",
    ],
    [
      "every pod connected",
      { pods: [pod({ pod: "x" })] },
      { state: "connected", toolCount: 2, tools: ["a", "b"] },
      "True",
      "Serving",
    ],
    [
      "a pod in error",
      { pods: [pod({ pod: "x", state: "error", lastError: "boom" })] },
      { state: "error", lastError: "boom" },
      "False",
      "Error",
    ],
  ])("reports %s", (_label, rt, fields, ready, reason) => {
    const s = mcpClientStatus(
      client(),
      { ok: true, name: "c" },
      rt,
      undefined,
      { now },
    );
    expect(s).toMatchObject({
      observedGeneration: 3,
      clientName: "c",
      ...fields,
    });
    expect(cond(s, "Ready")).toMatchObject({
      status: ready,
      reason,
      observedGeneration: 3,
    });
    expect(cond(s, "Authorized")).toBeUndefined();
  });

  it("reports an invalid resource as not ready with the verdict's reason", () => {
    const s = mcpClientStatus(
      client(),
      { ok: false, reason: "SecretNotFound", message: "Secret x not found" },
      undefined,
      undefined,
      { now },
    );
    expect(s).toMatchObject({
      state: "invalid",
      lastError: "Secret x not found",
    });
    expect(cond(s, "Ready")).toMatchObject({
      status: "False",
      reason: "SecretNotFound",
      message: "Secret x not found",
    });
    expect(cond(s, "Connected")).toMatchObject({
      status: "Unknown",
      reason: "NotServed",
    });
  });

  it("shows the authorize URL only while OAuth is pending", () => {
    const oauth = client({
      connectionType: "http",
      connectionString: "https://x",
      authType: "oauth",
      oauthConfig: {},
    });
    const pending = mcpClientStatus(
      oauth,
      { ok: true, name: "c" },
      {
        pods: [pod({ pod: "x", state: "connecting" })],
        oauth: { status: "pending", authorizeUrl: "https://a/authorize" },
      },
      undefined,
      { now },
    );
    expect(pending.authorizeUrl).toBe("https://a/authorize");
    expect(cond(pending, "Authorized")).toMatchObject({
      status: "False",
      reason: "AuthorizationPending",
    });
    expect(cond(pending, "Ready")?.status).toBe("False");
    const done = mcpClientStatus(
      oauth,
      { ok: true, name: "c" },
      { pods: [pod({ pod: "x" })], oauth: { status: "authorized" } },
      pending,
      { now },
    );
    expect(done.authorizeUrl).toBeUndefined();
    expect(cond(done, "Authorized")?.status).toBe("True");
    expect(cond(done, "Ready")?.status).toBe("True");
    const failed = mcpClientStatus(
      oauth,
      { ok: true, name: "c" },
      {
        pods: [pod({ pod: "x" })],
        oauth: { status: "failed", error: "invalid_grant" },
      },
      done,
      { now },
    );
    expect(cond(failed, "Ready")).toMatchObject({
      status: "False",
      reason: "AuthorizationFailed",
      message: "invalid_grant",
    });
  });

  it("is identical when recomputed from the same inputs, so nothing is written", () => {
    const first = mcpClientStatus(
      client(),
      { ok: true, name: "c" },
      { pods: [pod({ pod: "x" })] },
      undefined,
      { now },
    );
    const again = mcpClientStatus(
      client(),
      { ok: true, name: "c" },
      { pods: [pod({ pod: "x" })] },
      first,
      {
        now: new Date(now.getTime() + 5000),
      },
    );
    expect(again).toEqual(first);
  });
});

describe("virtualKeyStatus", () => {
  it("names the Secret and reflects the verdict", () => {
    const ok = virtualKeyStatus(
      client(),
      { ok: true, name: "c" },
      "c-key",
      undefined,
      { now },
    );
    expect(ok).toMatchObject({
      observedGeneration: 3,
      secretName: "c-key",
      conditions: [{ type: "Ready", status: "True" }],
    });
    const bad = virtualKeyStatus(
      client(),
      { ok: false, reason: "InvalidSpec", message: "m" },
      undefined,
      ok,
      { now },
    );
    expect(bad.conditions?.[0]).toMatchObject({
      status: "False",
      reason: "InvalidSpec",
      message: "m",
    });
  });
});
