/** The errors the client raises, worded once: each names the upstream (`host:port`) and what happened. */
import { GatewayError } from "../errors.js";

export function upstreamError(message: string, cause?: unknown): GatewayError {
  return new GatewayError(
    "TG_ERR_UPSTREAM",
    message,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

export function timeoutError(
  where: string,
  which: string,
  ms: number,
): GatewayError {
  return new GatewayError(
    "TG_ERR_TIMEOUT",
    `the ${which} timeout of ${ms} ms expired waiting for ${where}`,
  );
}

export function closedEarly(where: string): GatewayError {
  return upstreamError(
    `the connection to ${where} closed before the response was complete`,
  );
}

export function shuttingDown(where: string, what: string): GatewayError {
  return new GatewayError(
    "TG_ERR_SHUTTING_DOWN",
    `the connection pool for ${where} ${what}`,
  );
}

/** A promise rejected with `reason`, which may be anything: an abort signal's reason is the caller's choice. */
export function rejected(reason: unknown): Promise<never> {
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- like fetch, reject with the signal's reason as given
  return Promise.reject(reason);
}

/** What `fetch` rejects with on abort: the signal's reason, or an AbortError when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return (
    signal.reason ??
    new DOMException("This operation was aborted", "AbortError")
  );
}

/**
 * A framing or syntax problem in the response, worded to be followed by "from host:port";
 * the connection turns it into a `TG_ERR_UPSTREAM`.
 */
export class ParseError extends Error {
  override readonly name = "ParseError";
}
