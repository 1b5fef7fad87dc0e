/**
 * Runs a function while holding a store lock (the OAuth token refresh lock: with rotating
 * refresh tokens, two pods refreshing at once would revoke each other). The lock is renewed
 * every third of its TTL while `fn` runs, so a slow refresh does not lose it, and released
 * afterwards; if the pod dies, the TTL frees it.
 */
import { GatewayError } from "../errors.js";
import type { Lock, LockOptions, StateStore } from "./types.js";

export async function withLock<T>(
  store: StateStore,
  name: string,
  options: LockOptions,
  fn: (lock: Lock) => Promise<T>,
): Promise<T> {
  const lock = await store.lock(name, options);
  if (!lock) {
    throw new GatewayError(
      "TG_ERR_CONFLICT",
      `lock "${name}" is held elsewhere; gave up after ${options.waitMs ?? 0} ms`,
      { lock: name },
    );
  }
  const renew = setInterval(
    () => {
      // A failed renewal is not fatal here: the TTL still holds the lock for a while, and fn's own store calls fail if the store is gone.
      lock.extend(options.ttlMs).catch(() => undefined);
    },
    Math.max(1, Math.floor(options.ttlMs / 3)),
  );
  renew.unref();
  try {
    return await fn(lock);
  } finally {
    clearInterval(renew);
    await lock.release().catch(() => undefined);
  }
}
