import { describe, expect, it } from "vitest";

import { GatewayError } from "../errors.js";
import type { Release } from "./queue.js";
import { ProviderQueue } from "./queue.js";

const settled = async <T>(p: Promise<T>): Promise<"pending" | "done"> => {
  const marker = Symbol("pending");
  const r = await Promise.race([
    p.then(() => "done" as const),
    new Promise<typeof marker>((res) => setImmediate(() => res(marker))),
  ]);
  return r === marker ? "pending" : "done";
};

describe("ProviderQueue", () => {
  it("admits up to concurrency at once and hands freed slots to waiters in arrival order", async () => {
    const q = new ProviderQueue(2, 5, () => false);
    const a = await q.acquire();
    await q.acquire();
    const order: string[] = [];
    const c = q.acquire().then((r) => (order.push("c"), r));
    const d = q.acquire().then((r) => (order.push("d"), r));
    expect(q.stats).toMatchObject({ inFlight: 2, waiting: 2 });
    a();
    await c;
    expect(await settled(d)).toBe("pending");
    (await c)();
    await d;
    expect(order).toEqual(["c", "d"]);
  });

  it("drops a request at once with 'request dropped: queue is full' when the buffer is full and dropping is on", async () => {
    const q = new ProviderQueue(1, 1, () => true);
    await q.acquire();
    void q.acquire();
    const err = await q.acquire().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({
      code: "TG_ERR_QUEUE_FULL",
      status: 429,
      message: "request dropped: queue is full",
    });
  });

  it("makes a request wait for room when the buffer is full and dropping is off", async () => {
    const q = new ProviderQueue(1, 1, () => false);
    const first = await q.acquire();
    const second = q.acquire();
    const third = q.acquire();
    expect(q.stats).toMatchObject({ inFlight: 1, waiting: 1, overflow: 1 });
    first();
    (await second)();
    await third;
    expect(q.stats).toMatchObject({ inFlight: 1, waiting: 0, overflow: 0 });
  });

  it("reads the dropping flag on every request, so a runtime change applies at once", async () => {
    let drop = false;
    const q = new ProviderQueue(1, 0, () => drop);
    await q.acquire();
    const waiting = q.acquire();
    drop = true;
    await expect(q.acquire()).rejects.toMatchObject({
      code: "TG_ERR_QUEUE_FULL",
    });
    expect(await settled(waiting)).toBe("pending");
  });

  it("lets a waiting caller leave through its signal without taking a slot", async () => {
    const q = new ProviderQueue(1, 2, () => false);
    const held = await q.acquire();
    const ac = new AbortController();
    const leaving = q.acquire(ac.signal);
    const staying = q.acquire();
    ac.abort(new Error("caller left"));
    await expect(leaving).rejects.toThrow("caller left");
    expect(q.stats.waiting).toBe(1);
    held();
    const r: Release = await staying;
    expect(q.stats.inFlight).toBe(1);
    r();
    expect(q.stats.inFlight).toBe(0);
  });

  it("applies a larger concurrency to callers already waiting", async () => {
    const q = new ProviderQueue(1, 5, () => false);
    await q.acquire();
    const w = q.acquire();
    q.resize(2, 5);
    await w;
    expect(q.stats.inFlight).toBe(2);
  });

  it("counts a release called twice only once", async () => {
    const q = new ProviderQueue(1, 1, () => false);
    const r = await q.acquire();
    r();
    r();
    expect(q.stats.inFlight).toBe(0);
  });
});
