/**
 * Side-by-side measurement (ARCHITECTURE.md "Benchmarks"): a baseline and Toolgate run in
 * interleaved rounds after a warm-up, and the figures are medians of round medians, so the
 * noise of a shared 2-core machine hits both sides alike. Each measure ends as one JSON line.
 */
import { performance } from "node:perf_hooks";

export interface Side {
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly ops_per_s?: number;
}

export interface BenchResult {
  readonly bench: string;
  readonly baseline: Side;
  readonly toolgate: Side;
  readonly ratio: number;
  readonly added_p50_ms: number;
  readonly target: string;
  readonly pass: boolean;
  readonly [extra: string]: unknown;
}

export interface CompareOptions {
  readonly rounds?: number;
  readonly perRound?: number;
  readonly warmup?: number;
  /** Concurrent operations in flight per side (default 1). */
  readonly concurrency?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil((p / 100) * sorted.length) - 1),
  );
  return sorted[i] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

async function round(
  op: () => Promise<unknown>,
  count: number,
  concurrency: number,
): Promise<{ lat: number[]; opsPerS: number }> {
  const lat: number[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const t0 = performance.now();
      await op();
      lat.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  lat.sort((a, b) => a - b);
  return { lat, opsPerS: count / elapsed };
}

const r3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Runs both operations in interleaved rounds and returns the medians of round p50/p99/throughput. */
export async function compare(
  baseline: () => Promise<unknown>,
  toolgate: () => Promise<unknown>,
  opts: CompareOptions = {},
): Promise<{ baseline: Side; toolgate: Side }> {
  const { rounds = 7, perRound = 200, warmup = 100, concurrency = 1 } = opts;
  await round(baseline, warmup, concurrency);
  await round(toolgate, warmup, concurrency);
  const acc = {
    b: { p50: [] as number[], p99: [] as number[], ops: [] as number[] },
    t: { p50: [] as number[], p99: [] as number[], ops: [] as number[] },
  };
  for (let i = 0; i < rounds; i++) {
    // Alternate which side goes first so drift over time does not favour one.
    const order = i % 2 === 0 ? (["b", "t"] as const) : (["t", "b"] as const);
    for (const side of order) {
      const r = await round(
        side === "b" ? baseline : toolgate,
        perRound,
        concurrency,
      );
      acc[side].p50.push(percentile(r.lat, 50));
      acc[side].p99.push(percentile(r.lat, 99));
      acc[side].ops.push(r.opsPerS);
    }
  }
  const side = (a: { p50: number[]; p99: number[]; ops: number[] }): Side => ({
    p50_ms: r3(median(a.p50)),
    p99_ms: r3(median(a.p99)),
    ops_per_s: Math.round(median(a.ops)),
  });
  return { baseline: side(acc.b), toolgate: side(acc.t) };
}

/** Builds the result line; `check` decides pass from the figures, `target` says the rule in words. */
export function result(
  bench: string,
  sides: { baseline: Side; toolgate: Side },
  target: string,
  check: (r: {
    ratio: number;
    added_p50_ms: number;
    baseline: Side;
    toolgate: Side;
  }) => boolean,
  extra: Record<string, unknown> = {},
): BenchResult {
  const ratio = r3(sides.toolgate.p50_ms / sides.baseline.p50_ms);
  const added = r3(sides.toolgate.p50_ms - sides.baseline.p50_ms);
  const figures = { ratio, added_p50_ms: added, ...sides };
  return {
    bench,
    ...sides,
    ratio,
    added_p50_ms: added,
    target,
    pass: check(figures),
    ...extra,
  };
}

export function print(results: readonly BenchResult[]): void {
  for (const r of results) console.log(JSON.stringify(r));
}

/** A bench module: `bench/src/<name>.ts` exports `run()` returning its result lines. */
export interface BenchModule {
  run(): Promise<BenchResult[]>;
}
