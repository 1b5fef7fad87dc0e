/**
 * Coarse deadlines for the client's timeouts (connect, headers, body, idle): one interval
 * serves every connection, where a timer per phase cost a setTimeout and a clearTimeout three
 * times per request on the hot path. A timeout fires up to TICK_MS late, which is nothing next
 * to its size (seconds to minutes). The interval runs only while some connection is open.
 */
import { performance } from "node:perf_hooks";

export interface Expiring {
  /** performance.now() at which `expire` is due; 0: nothing is due. */
  readonly deadline: number;
  expire(): void;
}

export const TICK_MS = 100;

const watched = new Set<Expiring>();
let ticker: NodeJS.Timeout | undefined;

function tick(): void {
  const now = performance.now();
  for (const item of watched)
    if (item.deadline !== 0 && item.deadline <= now) item.expire();
}

export function watch(item: Expiring): void {
  watched.add(item);
  ticker ??= setInterval(tick, TICK_MS);
}

export function unwatch(item: Expiring): void {
  watched.delete(item);
  if (watched.size === 0 && ticker !== undefined) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

export function deadlineIn(ms: number): number {
  return performance.now() + ms;
}
