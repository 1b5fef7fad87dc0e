import { describe, expect, it } from "vitest";

import { jsonEqual, setConditions } from "./conditions.js";

const t0 = new Date("2026-01-01T00:00:00Z");
const t1 = new Date("2026-01-01T00:05:00Z");

describe("setConditions", () => {
  const prev = setConditions(
    undefined,
    [{ type: "Ready", status: "False", reason: "Pending", message: "a" }],
    t0,
  );

  it("stamps a new condition with the current time", () => {
    expect(prev[0]?.lastTransitionTime).toBe(t0.toISOString());
  });

  it("keeps lastTransitionTime when only reason or message change", () => {
    const next = setConditions(
      prev,
      [{ type: "Ready", status: "False", reason: "Other", message: "b" }],
      t1,
    );
    expect(next[0]).toEqual({
      type: "Ready",
      status: "False",
      reason: "Other",
      message: "b",
      lastTransitionTime: t0.toISOString(),
    });
  });

  it("moves lastTransitionTime when the status changes", () => {
    const next = setConditions(
      prev,
      [{ type: "Ready", status: "True", reason: "Serving", message: "" }],
      t1,
    );
    expect(next[0]?.lastTransitionTime).toBe(t1.toISOString());
  });
});

describe("jsonEqual", () => {
  it.each([
    [{ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 }, true],
    [{ a: 1, u: undefined }, { a: 1 }, true],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: {} }, { a: [] }, false],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [null, {}, false],
  ])("compares %j and %j as %s", (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
  });
});
