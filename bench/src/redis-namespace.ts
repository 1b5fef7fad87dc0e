/**
 * The Redis the state benches use (the real one at 127.0.0.1:6379, or
 * TOOLGATE_BENCH_REDIS_URL), and the removal of a bench's own namespace afterwards: other
 * users of a shared Redis keep their keys.
 */
import { Redis } from "ioredis";

export const BENCH_REDIS_URL =
  process.env.TOOLGATE_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Deletes every key under `<namespace>:`. */
export async function dropNamespace(namespace: string): Promise<void> {
  const admin = new Redis(BENCH_REDIS_URL);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await admin.scan(
        cursor,
        "MATCH",
        `${namespace}:*`,
        "COUNT",
        1000,
      );
      cursor = next;
      if (keys.length > 0) await admin.del(...keys);
    } while (cursor !== "0");
  } finally {
    admin.disconnect();
  }
}
