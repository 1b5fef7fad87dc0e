import { describe, expect, it } from "vitest";

import { ContextPool } from "./context-pool.js";

describe("ContextPool (initial_pool_size)", () => {
  it("preallocates initial_pool_size contexts and reuses them without creating more", () => {
    const pool = new ContextPool(3);
    expect(pool.stats).toEqual({
      initialSize: 3,
      available: 3,
      inUse: 0,
      created: 3,
    });
    const a = pool.acquire();
    pool.release(a);
    expect(pool.acquire()).toBe(a);
    expect(pool.stats.created).toBe(3);
  });

  it("grows past the initial size under a burst and keeps at most twice that for reuse", () => {
    const pool = new ContextPool(2);
    const taken = Array.from({ length: 6 }, () => pool.acquire());
    expect(pool.stats).toMatchObject({ created: 6, inUse: 6, available: 0 });
    for (const c of taken) pool.release(c);
    expect(pool.stats).toMatchObject({ inUse: 0, available: 4 });
  });

  it("resets a reused context so no figure leaks from the previous call", () => {
    const pool = new ContextPool(1);
    const c = pool.acquire().reset("p", "m", "r1", 1);
    c.firstChunkAt = 5;
    c.interChunkSeconds.push(0.1);
    c.inputTokens = 3;
    const kept = c.interChunkSeconds;
    pool.release(c);
    const again = pool.acquire().reset("q", "n", "r2", 2);
    expect(again).toMatchObject({
      provider: "q",
      model: "n",
      requestId: "r2",
      firstChunkAt: 0,
      inputTokens: undefined,
    });
    expect(again.interChunkSeconds).toEqual([]);
    expect(kept).toEqual([0.1]);
  });
});
