/**
 * Time as the upstream layer sees it. Every wait (backoff, health interval, timeouts of
 * `waitConnected`) goes through a `Clock`, so tests can drive them with vitest fake timers
 * (the system clock looks up `setTimeout` at call time) or record the waits they were asked for.
 */
export interface Clock {
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error
    ? reason
    : new DOMException("The operation was aborted", "AbortError");
}
