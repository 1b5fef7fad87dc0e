import { afterEach, describe, expect, it, vi } from "vitest";

import { WorkQueue } from "./work-queue.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe("WorkQueue", () => {
  afterEach(() => vi.useRealTimers());

  it("processes a key added many times while waiting once", async () => {
    const q = new WorkQueue();
    const seen: string[] = [];
    q.add("MCPClient/ns/a");
    q.add("MCPClient/ns/a");
    q.add("MCPClient/ns/b");
    q.run((k) => Promise.resolve(void seen.push(k)), 1);
    await q.idle();
    expect(seen).toEqual(["MCPClient/ns/a", "MCPClient/ns/b"]);
    await q.stop();
  });

  it("never runs one key on two workers at once, and reruns a key added while it ran", async () => {
    const q = new WorkQueue();
    const gate = deferred();
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    q.run(async () => {
      running++;
      runs++;
      maxRunning = Math.max(maxRunning, running);
      if (runs === 1) await gate.promise;
      running--;
    }, 4);
    q.add("k");
    await vi.waitFor(() => expect(runs).toBe(1));
    q.add("k");
    q.add("k");
    expect(q.depth).toBe(0);
    gate.resolve();
    await vi.waitFor(() => expect(runs).toBe(2));
    await q.idle();
    expect(maxRunning).toBe(1);
    await q.stop();
  });

  it("retries a failing key with growing backoff and forgets the failures on success", async () => {
    vi.useFakeTimers();
    const errors: string[] = [];
    const q = new WorkQueue({
      backoff: { baseMs: 100, maxMs: 1000, jitter: 0 },
      onError: (k) => errors.push(k),
    });
    let calls = 0;
    q.run(
      () =>
        ++calls <= 3 ? Promise.reject(new Error("409")) : Promise.resolve(),
      1,
    );
    q.add("k");
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls).toBe(3);
    await vi.advanceTimersByTimeAsync(400);
    expect(calls).toBe(4);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(4);
    expect(errors).toEqual(["k", "k", "k"]);
    await q.stop();
  });

  it("drops queued and delayed keys on stop", async () => {
    vi.useFakeTimers();
    const q = new WorkQueue();
    let calls = 0;
    q.addAfter("later", 50);
    await q.stop();
    q.add("after-stop");
    q.run(() => Promise.resolve(void calls++), 1);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(0);
  });
});
