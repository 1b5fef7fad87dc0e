import { describe, expect, it } from "vitest";

import { backoffDelay } from "./backoff.js";

const opts = { baseMs: 100, maxMs: 1000, jitter: 0.5 };

describe("backoffDelay", () => {
  it.each([
    [0, 0, 100],
    [1, 0, 200],
    [3, 0, 800],
    [4, 0, 1000],
    [20, 0, 1000],
    [2, 1, 200],
    [2, 0.5, 300],
  ])("waits for attempt %i with random %d: %i ms", (attempt, random, ms) => {
    expect(backoffDelay(attempt, opts, () => random)).toBe(ms);
  });

  it("never exceeds the ceiling nor drops below half of it with 50% jitter", () => {
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(2, opts);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(400);
    }
  });
});
