/**
 * The one contract every `StateStore` passes, run against each implementation the way hono
 * runs its router suite against each router: `describeStateStore("memory", harness)` in
 * memory-store.test.ts, `describeStateStore("redis", harness)` in redis-store.test.ts.
 * Each test gets a fresh namespace; two stores opened on the same namespace are two pods.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";

import type { StateStore } from "./types.js";

export interface StoreHarness {
  /** A store on the shared backend; the same namespace twice = two pods of one fleet. */
  open(namespace: string): StateStore;
  /** Raw access to full (namespaced) keys, to inspect and plant stored text. */
  readonly raw: {
    get(fullKey: string): Promise<string | undefined>;
    put(fullKey: string, text: string): Promise<void>;
  };
  /** Memory runs on fake timers; Redis needs real (short) waits for its TTLs. */
  readonly fakeTimers: boolean;
  /** Removes every key of the namespace (never FLUSHALL: the Redis may be shared). */
  cleanup(namespace: string): Promise<void>;
}

let seq = 0;
const runId = `${process.pid}-${Date.now().toString(36)}`;

const later = (): {
  promise: Promise<unknown>;
  resolve: (v: unknown) => void;
} => {
  let resolve!: (v: unknown) => void;
  const promise = new Promise<unknown>((r) => (resolve = r));
  return { promise, resolve };
};

export function describeStateStore(name: string, harness: StoreHarness): void {
  describe(`StateStore contract: ${name}`, () => {
    let ns = "";
    let opened: StateStore[] = [];
    let a: StateStore;
    let b: StateStore;
    const open = (namespace = ns): StateStore => {
      const s = harness.open(namespace);
      opened.push(s);
      return s;
    };
    const elapse = async (ms: number): Promise<void> => {
      if (harness.fakeTimers) await vi.advanceTimersByTimeAsync(ms);
      else await new Promise((r) => setTimeout(r, ms));
    };

    beforeEach(() => {
      if (harness.fakeTimers) vi.useFakeTimers();
      ns = `tgtest-${runId}-${++seq}`;
      opened = [];
      a = open();
      b = open();
    });

    afterEach(async () => {
      if (harness.fakeTimers) vi.useRealTimers();
      await Promise.all(opened.map((s) => s.close()));
      await harness.cleanup(ns);
    });

    describe("values", () => {
      it("returns what was set with revision 1, and bumps the revision on every write", async () => {
        expect(await a.set("kv:x", { n: 1, s: "ü" })).toBe(1);
        expect(await b.get("kv:x")).toEqual({
          key: "kv:x",
          value: { n: 1, s: "ü" },
          rev: 1,
        });
        expect(await b.set("kv:x", [1, 2])).toBe(2);
        expect(await a.get("kv:x")).toEqual({
          key: "kv:x",
          value: [1, 2],
          rev: 2,
        });
      });

      it("returns undefined for a key that was never set or was deleted", async () => {
        expect(await a.get("kv:none")).toBeUndefined();
        await a.set("kv:gone", 1);
        expect(await b.delete("kv:gone")).toBe(true);
        expect(await b.delete("kv:gone")).toBe(false);
        expect(await a.get("kv:gone")).toBeUndefined();
      });

      it("stores the versioned envelope under the namespaced key", async () => {
        await a.set("kv:env", { ok: true });
        expect(await harness.raw.get(`${ns}:kv:env`)).toBe(
          '{"v":1,"rev":1,"data":{"ok":true}}',
        );
      });

      it("rejects a value of an unknown envelope version with a message naming the key", async () => {
        await harness.raw.put(`${ns}:kv:future`, '{"v":2,"rev":1,"data":{}}');
        await expect(a.get("kv:future")).rejects.toMatchObject({
          code: "TG_ERR_STATE_FORMAT",
        });
        await expect(a.get("kv:future")).rejects.toThrow(`${ns}:kv:future`);
        await expect(a.get("kv:future")).rejects.toThrow(/format v2/);
        await harness.raw.put(`${ns}:kv:junk`, "not json");
        await expect(a.get("kv:junk")).rejects.toMatchObject({
          code: "TG_ERR_STATE_FORMAT",
        });
      });

      it("validates a read value against a schema when one is given", async () => {
        await a.set("kv:shape", { n: "one" });
        await expect(
          a.get("kv:shape", z.object({ n: z.number() })),
        ).rejects.toMatchObject({ code: "TG_ERR_STATE_FORMAT" });
        expect(
          (await a.get("kv:shape", z.object({ n: z.string() })))?.value.n,
        ).toBe("one");
      });

      it("refuses to store undefined", async () => {
        await expect(a.set("kv:u", undefined)).rejects.toThrow(/JSON values/);
      });

      it("keeps namespaces apart", async () => {
        const other = open(`${ns}-other`);
        await a.set("kv:shared-name", 1);
        expect(await other.get("kv:shared-name")).toBeUndefined();
        await harness.cleanup(`${ns}-other`);
      });
    });

    describe("expiry", () => {
      it("expires a value after its TTL", async () => {
        await a.set("ttl:x", 1, { ttlMs: 100 });
        expect((await b.get("ttl:x"))?.value).toBe(1);
        await elapse(250);
        expect(await b.get("ttl:x")).toBeUndefined();
      });

      it("drops an earlier TTL when a value is rewritten without one", async () => {
        await a.set("ttl:y", 1, { ttlMs: 100 });
        await a.set("ttl:y", 2);
        await elapse(250);
        expect((await a.get("ttl:y"))?.value).toBe(2);
      });

      it("leaves expired keys out of prefix listings", async () => {
        await a.set("ttl:list:a", 1, { ttlMs: 100 });
        await a.set("ttl:list:b", 2);
        await elapse(250);
        expect((await a.list("ttl:list:")).map((e) => e.key)).toEqual([
          "ttl:list:b",
        ]);
      });
    });

    describe("compare-and-set", () => {
      it("creates only when absent with expected revision 0", async () => {
        expect(await a.compareAndSet("cas:new", 0, "first")).toEqual({
          ok: true,
          rev: 1,
        });
        const second = await b.compareAndSet("cas:new", 0, "second");
        expect(second).toEqual({
          ok: false,
          current: { key: "cas:new", value: "first", rev: 1 },
        });
      });

      it("writes only when the revision matches", async () => {
        const rev = await a.set("cas:x", 1);
        expect(await b.compareAndSet("cas:x", rev + 1, 2)).toMatchObject({
          ok: false,
        });
        expect(
          await b.compareAndSet("cas:x", rev, 2, { ttlMs: 60_000 }),
        ).toEqual({ ok: true, rev: rev + 1 });
        expect(await a.compareAndSet("cas:x", rev, 3)).toMatchObject({
          ok: false,
          current: { value: 2, rev: rev + 1 },
        });
      });

      it("lets exactly one of many concurrent writers with the same revision win", async () => {
        const rev = await a.set("cas:race", "start");
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? a : b).compareAndSet("cas:race", rev, `w${i}`),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
      });

      it("makes read-modify-write loops lose no update under concurrency", async () => {
        await a.set("cas:sum", 0);
        const add = async (s: StateStore): Promise<void> => {
          for (;;) {
            const cur = await s.get("cas:sum", z.number());
            if (
              (
                await s.compareAndSet(
                  "cas:sum",
                  cur?.rev ?? 0,
                  (cur?.value ?? 0) + 1,
                )
              ).ok
            )
              return;
          }
        };
        await Promise.all(
          Array.from({ length: 16 }, (_, i) => add(i % 2 ? a : b)),
        );
        expect((await a.get("cas:sum"))?.value).toBe(16);
      });

      it("hands a single-use value to exactly one taker", async () => {
        await a.set("take:x", { state: "s1" }, { ttlMs: 60_000 });
        const taken = await Promise.all([
          a.take("take:x"),
          b.take("take:x"),
          a.take("take:x"),
        ]);
        expect(taken.filter((t) => t !== undefined)).toEqual([
          { key: "take:x", value: { state: "s1" }, rev: 1 },
        ]);
        expect(await a.get("take:x")).toBeUndefined();
      });
    });

    describe("counters", () => {
      it("counts every concurrent increment from several pods", async () => {
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? a : b).increment("count:x"),
          ),
        );
        expect(await a.counter("count:x")).toBe(50);
        expect(await b.increment("count:x", 5)).toBe(55);
        expect(await b.increment("count:x", -10)).toBe(45);
      });

      it("reads an absent counter as 0 without creating it", async () => {
        expect(await a.counter("count:none")).toBe(0);
        expect(await harness.raw.get(`${ns}:count:none`)).toBeUndefined();
      });

      it("starts a counter's TTL once and does not extend it on later increments", async () => {
        await a.increment("count:window", 1, { ttlMs: 200 });
        await elapse(100);
        await a.increment("count:window", 1, { ttlMs: 200 });
        expect(await a.counter("count:window")).toBe(2);
        await elapse(200);
        expect(await a.counter("count:window")).toBe(0);
      });
    });

    describe("locks", () => {
      it("gives a lock to one owner at a time", async () => {
        const held = await a.lock("refresh:x", { ttlMs: 10_000 });
        expect(held).toBeDefined();
        expect(await b.lock("refresh:x", { ttlMs: 10_000 })).toBeUndefined();
        expect(await held?.release()).toBe(true);
        expect(await b.lock("refresh:x", { ttlMs: 10_000 })).toBeDefined();
      });

      it("lets another owner in after the lock expired, and the old owner can then neither release nor extend it", async () => {
        const first = await a.lock("refresh:y", { ttlMs: 100 });
        await elapse(250);
        const second = await b.lock("refresh:y", { ttlMs: 10_000 });
        expect(second).toBeDefined();
        expect(await first?.release()).toBe(false);
        expect(await first?.extend(10_000)).toBe(false);
        expect(await a.lock("refresh:y", { ttlMs: 10_000 })).toBeUndefined();
        expect(await second?.release()).toBe(true);
      });

      it("keeps a lock past its first TTL when the owner extends it", async () => {
        const held = await a.lock("refresh:z", { ttlMs: 200 });
        await elapse(100);
        expect(await held?.extend(10_000)).toBe(true);
        await elapse(200);
        expect(await b.lock("refresh:z", { ttlMs: 10_000 })).toBeUndefined();
      });

      it("waits for a held lock when asked to, and gets it once it is released", async () => {
        const held = await a.lock("refresh:w", {
          ttlMs: 10_000,
          owner: "pod-a:1",
        });
        expect(held?.owner).toBe("pod-a:1");
        const waiting = b.lock("refresh:w", {
          ttlMs: 10_000,
          waitMs: 5_000,
          retryMs: 20,
        });
        await elapse(60);
        await held?.release();
        await elapse(60);
        const got = await waiting;
        expect(got?.owner).toMatch(/:/);
        expect(got?.owner).not.toBe("pod-a:1");
      });
    });

    describe("publish/subscribe", () => {
      it("delivers a message to subscribers on every pod, the publisher's included", async () => {
        const onA = later();
        const onB = later();
        await a.subscribe("events:t", (m) => onA.resolve(m));
        await b.subscribe("events:t", (m) => onB.resolve(m));
        await a.publish("events:t", { client: "github" });
        expect(await onA.promise).toEqual({ client: "github" });
        expect(await onB.promise).toEqual({ client: "github" });
      });

      it("stops delivering after unsubscribe while other handlers keep receiving", async () => {
        const gone: unknown[] = [];
        const kept: unknown[] = [];
        const marker = later();
        const off = await b.subscribe("events:u", (m) => gone.push(m));
        await b.subscribe("events:u", (m) => {
          kept.push(m);
          if (m === "marker") marker.resolve(m);
        });
        await off();
        await a.publish("events:u", "after");
        await a.publish("events:u", "marker");
        await marker.promise;
        expect(gone).toEqual([]);
        expect(kept).toEqual(["after", "marker"]);
      });

      it("does not deliver messages of another namespace or channel", async () => {
        const other = open(`${ns}-x`);
        const got: unknown[] = [];
        const marker = later();
        await b.subscribe("events:v", (m) => {
          got.push(m);
          if (m === "marker") marker.resolve(m);
        });
        await other.publish("events:v", "foreign");
        await a.publish("events:other", "wrong channel");
        await a.publish("events:v", "marker");
        await marker.promise;
        expect(got).toEqual(["marker"]);
      });

      it("keeps delivering to the other handlers when one throws", async () => {
        const ok = later();
        await b.subscribe("events:w", () => {
          throw new Error("handler bug");
        });
        await b.subscribe("events:w", (m) => ok.resolve(m));
        await a.publish("events:w", 7);
        expect(await ok.promise).toBe(7);
      });
    });

    describe("listing", () => {
      it("lists exactly the keys under a prefix", async () => {
        await a.set("health:api:pod-a", 1);
        await a.set("health:api:pod-b", 2);
        await a.set("health:api2:pod-a", 3);
        await a.set("snapshot:api", 4);
        const rows = await b.list("health:api:");
        expect(rows.map((r) => [r.key, r.value]).sort()).toEqual([
          ["health:api:pod-a", 1],
          ["health:api:pod-b", 2],
        ]);
      });

      it("skips values of an unknown format instead of failing the whole listing", async () => {
        await a.set("mixed:ok", 1);
        await harness.raw.put(
          `${ns}:mixed:future`,
          '{"v":2,"rev":1,"data":{}}',
        );
        expect((await a.list("mixed:")).map((r) => r.key)).toEqual([
          "mixed:ok",
        ]);
        expect((await a.list("mixed:", z.string())).map((r) => r.key)).toEqual(
          [],
        );
      });

      it("treats glob characters in a prefix literally", async () => {
        await a.set("odd:*[x]?:1", 1);
        await a.set("odd:a[x]b:1", 2);
        expect((await a.list("odd:*[x]?:")).map((r) => r.value)).toEqual([1]);
      });

      it("lists many keys across SCAN pages", async () => {
        await Promise.all(
          Array.from({ length: 600 }, (_, i) => a.set(`many:${i}`, i)),
        );
        const rows = await b.list("many:", z.number());
        expect(rows).toHaveLength(600);
        expect(new Set(rows.map((r) => r.value)).size).toBe(600);
      });
    });

    describe("lifecycle", () => {
      it("answers ping while open and rejects every call after close", async () => {
        await expect(a.ping()).resolves.toBeUndefined();
        const c = open();
        await c.close();
        await expect(c.ping()).rejects.toMatchObject({
          code: "TG_ERR_STATE_UNAVAILABLE",
        });
        await expect(c.get("kv:x")).rejects.toMatchObject({
          code: "TG_ERR_STATE_UNAVAILABLE",
        });
      });

      it("counts the operations it sends to the backend", async () => {
        const before = a.stats().commands;
        await a.set("kv:c", 1);
        await a.get("kv:c");
        expect(a.stats().commands - before).toBe(2);
      });
    });
  });
}
