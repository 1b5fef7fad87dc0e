/**
 * Retry with exponential backoff, SPEC 8.2: up to 5 retries after the first attempt (6 in
 * all), waiting 1, 2, 4, 8, 16 s (initial 1 s, multiplier 2, capped at 30 s). Used for
 * connection creation, transport start, initialization, tool discovery and both automatic
 * and manual reconnection. A permanent error (see `classify.ts`) ends the loop at once.
 */
import { classifyError } from "./classify.js";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";

export interface RetryPolicy {
  readonly maxRetries: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
  readonly multiplier: number;
}

export const RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 5,
  initialBackoffMs: 1000,
  maxBackoffMs: 30_000,
  multiplier: 2,
});

/** The wait before retry number `retry` (1-based): 1000, 2000, 4000, 8000, 16000 ms with the default policy. */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy = RETRY_POLICY,
): number {
  return Math.min(
    policy.initialBackoffMs * policy.multiplier ** (retry - 1),
    policy.maxBackoffMs,
  );
}

export interface RetryOptions {
  readonly clock?: Clock;
  readonly policy?: RetryPolicy;
  /** Aborting stops the loop (during an attempt's wait or before the next attempt). */
  readonly signal?: AbortSignal;
  /** Called after a failed attempt that will be retried, before the wait. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Why `withRetry` gave up: the last error, whether it was permanent, and how many attempts ran. */
export class RetryExhaustedError extends Error {
  readonly attempts: number;
  readonly permanent: boolean;

  constructor(cause: unknown, attempts: number, permanent: boolean) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(permanent ? why : `${why} (gave up after ${attempts} attempts)`, {
      cause,
    });
    this.name = "RetryExhaustedError";
    this.attempts = attempts;
    this.permanent = permanent;
  }
}

/**
 * Runs `op` until it succeeds, a permanent error occurs, or the retries are used up; throws
 * a `RetryExhaustedError` in the last two cases. `op` receives the 1-based attempt number.
 */
export async function withRetry<T>(
  op: (attempt: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const policy = options.policy ?? RETRY_POLICY;
  for (let attempt = 1; ; attempt++) {
    options.signal?.throwIfAborted();
    try {
      return await op(attempt);
    } catch (error) {
      await afterFailure(error, attempt, policy, options);
    }
  }
}

/** Throws when the loop must end; otherwise waits out the backoff before the next attempt. */
async function afterFailure(
  error: unknown,
  attempt: number,
  policy: RetryPolicy,
  options: RetryOptions,
): Promise<void> {
  options.signal?.throwIfAborted();
  const permanent = classifyError(error) === "permanent";
  if (permanent || attempt > policy.maxRetries)
    throw new RetryExhaustedError(error, attempt, permanent);
  const delay = backoffDelay(attempt, policy);
  options.onRetry?.(error, attempt, delay);
  await (options.clock ?? systemClock).sleep(delay, options.signal);
}
