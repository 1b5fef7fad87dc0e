/**
 * Read-modify-write on top of compare-and-set: the loop every caller would otherwise write
 * (OAuth token rotation, counters with structure). `fn` sees the current value (undefined when
 * absent) and returns the next one, or `undefined` to leave the key as it is; on a conflict
 * it runs again on the fresher value.
 */
import type { z } from "zod";

import { GatewayError } from "../errors.js";
import type { SetOptions, StateStore } from "./types.js";

export interface UpdateOptions extends SetOptions {
  /** Give up after this many conflicts (default 20): a key this contended is a design problem. */
  readonly attempts?: number;
}

export async function updateValue<T>(
  store: StateStore,
  key: string,
  schema: z.ZodType<T>,
  fn: (current: T | undefined) => T | undefined,
  options: UpdateOptions = {},
): Promise<{ value: T | undefined; rev: number }> {
  const attempts = options.attempts ?? 20;
  for (let i = 0; i < attempts; i++) {
    const current = (await store.get(key, schema)) ?? {
      value: undefined,
      rev: 0,
    };
    const next = fn(current.value);
    if (next === undefined) return { value: current.value, rev: current.rev };
    const r = await store.compareAndSet(key, current.rev, next, options);
    if (r.ok) return { value: next, rev: r.rev };
  }
  throw new GatewayError(
    "TG_ERR_CONFLICT",
    `state key "${key}" changed concurrently ${attempts} times in a row; try again`,
    { key },
  );
}
