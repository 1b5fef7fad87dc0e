import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import {
  backoffDelay,
  RETRY_POLICY,
  RetryExhaustedError,
  withRetry,
} from "./retry.js";

const refused = (): Error =>
  Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });

describe("withRetry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("has SPEC 8.2's policy: 5 retries, 1 s initial, 30 s max, multiplier 2", () => {
    expect(RETRY_POLICY).toEqual({
      maxRetries: 5,
      initialBackoffMs: 1000,
      maxBackoffMs: 30_000,
      multiplier: 2,
    });
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(n))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it("makes 6 attempts in all, waiting 1, 2, 4, 8 and 16 s between them, then gives up", async () => {
    const start = Date.now();
    const attempts: number[] = [];
    const run = withRetry(() => {
      attempts.push(Date.now() - start);
      return Promise.reject(refused());
    });
    const outcome = run.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(60_000);
    const err = await outcome;
    expect(attempts).toEqual([0, 1000, 3000, 7000, 15_000, 31_000]);
    expect(err).toBeInstanceOf(RetryExhaustedError);
    expect((err as RetryExhaustedError).attempts).toBe(6);
    expect((err as RetryExhaustedError).permanent).toBe(false);
    expect((err as Error).message).toBe(
      "connect ECONNREFUSED (gave up after 6 attempts)",
    );
  });

  it("does not attempt again before the wait is over", async () => {
    let calls = 0;
    const run = withRetry(() => {
      calls++;
      return Promise.reject(refused());
    }).catch(() => undefined);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await vi.advanceTimersByTimeAsync(60_000);
    await run;
  });

  it("stops at once on a permanent error", async () => {
    let calls = 0;
    const err = await withRetry(() => {
      calls++;
      return Promise.reject(
        Object.assign(new Error("spawn x ENOENT"), { code: "ENOENT" }),
      );
    }).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect((err as RetryExhaustedError).permanent).toBe(true);
  });

  it("returns the first success", async () => {
    let calls = 0;
    const run = withRetry((attempt) => {
      calls++;
      return attempt < 3 ? Promise.reject(refused()) : Promise.resolve("ok");
    });
    await vi.advanceTimersByTimeAsync(3000);
    await expect(run).resolves.toBe("ok");
    expect(calls).toBe(3);
  });

  it("stops waiting when its signal aborts", async () => {
    const ac = new AbortController();
    let calls = 0;
    const run = withRetry(
      () => {
        calls++;
        return Promise.reject(refused());
      },
      { signal: ac.signal },
    ).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    ac.abort(new Error("closed"));
    const err = await run;
    expect((err as Error).message).toBe("closed");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(1);
  });
});
