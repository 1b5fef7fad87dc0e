import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";

import type { TestFleet } from "./testing.js";
import { fleets } from "./testing.js";
import { updateValue } from "./update.js";
import { withLock } from "./with-lock.js";

const Tokens = z.object({ access: z.string(), generation: z.number() });

describe.each(fleets)("store helpers (%s store)", (_kind, makeFleet) => {
  let fleet: TestFleet;
  afterEach(() => fleet.close());

  it("applies every concurrent read-modify-write exactly once", async () => {
    fleet = makeFleet();
    const [a, b] = [fleet.open("pod-a"), fleet.open("pod-b")];
    const bump = (cur: z.infer<typeof Tokens> | undefined) => ({
      access: "t",
      generation: (cur?.generation ?? 0) + 1,
    });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        updateValue(i % 2 ? a : b, "oauth-token:x", Tokens, bump),
      ),
    );
    expect((await a.get("oauth-token:x", Tokens))?.value.generation).toBe(12);
  });

  it("leaves the key untouched when the update returns undefined", async () => {
    fleet = makeFleet();
    const a = fleet.open("pod-a");
    await a.set("oauth-token:y", { access: "t", generation: 1 });
    expect(
      await updateValue(a, "oauth-token:y", Tokens, () => undefined),
    ).toEqual({ value: { access: "t", generation: 1 }, rev: 1 });
  });

  it("runs one holder at a time and frees the lock afterwards, even when the function throws", async () => {
    fleet = makeFleet();
    const [a, b] = [fleet.open("pod-a"), fleet.open("pod-b")];
    let inside = 0;
    let maxInside = 0;
    const critical = async (): Promise<void> => {
      inside++;
      maxInside = Math.max(maxInside, inside);
      await new Promise((r) => setTimeout(r, 20));
      inside--;
    };
    await Promise.all(
      [a, b, a, b].map((s) =>
        withLock(
          s,
          "oauth-refresh:x",
          { ttlMs: 5_000, waitMs: 5_000, retryMs: 5 },
          critical,
        ),
      ),
    );
    expect(maxInside).toBe(1);
    await expect(
      withLock(a, "oauth-refresh:x", { ttlMs: 5_000 }, () =>
        Promise.reject(new Error("refresh failed")),
      ),
    ).rejects.toThrow("refresh failed");
    expect(await b.lock("oauth-refresh:x", { ttlMs: 5_000 })).toBeDefined();
  });

  it("keeps the lock while a slow holder runs past the TTL", async () => {
    fleet = makeFleet();
    const [a, b] = [fleet.open("pod-a"), fleet.open("pod-b")];
    await withLock(a, "slow", { ttlMs: 150 }, async () => {
      await new Promise((r) => setTimeout(r, 400));
      expect(await b.lock("slow", { ttlMs: 1_000 })).toBeUndefined();
    });
  });

  it("says who to blame when the lock stays held", async () => {
    fleet = makeFleet();
    const [a, b] = [fleet.open("pod-a"), fleet.open("pod-b")];
    await a.lock("busy", { ttlMs: 5_000 });
    await expect(
      withLock(b, "busy", { ttlMs: 5_000, waitMs: 30, retryMs: 10 }, () =>
        Promise.resolve(),
      ),
    ).rejects.toMatchObject({ code: "TG_ERR_CONFLICT" });
  });
});
