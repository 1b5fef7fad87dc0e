/**
 * Exponential backoff with jitter, so that many watchers failing together (an API server
 * restart) do not come back in lockstep. `random` is injectable so tests can pin it.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  /** Fraction of the delay that is randomised: 0 = none, 1 = anywhere in [0, delay]. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = {
  baseMs: 500,
  maxMs: 30_000,
  jitter: 0.5,
};

/** Delay before retry number `attempt` (0-based). */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt));
  return Math.round(ceiling * (1 - opts.jitter * random()));
}
