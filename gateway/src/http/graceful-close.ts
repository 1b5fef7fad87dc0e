/**
 * Graceful stop of the HTTP side: refuse new connections, let requests in flight finish, and
 * after the grace period cut whatever is still open (long-lived streams such as GET /mcp SSE
 * never finish on their own). fastify's `close()` already stops accepting, answers 503 on
 * kept-alive sockets and closes idle ones (`forceCloseConnections: "idle"`); this adds the bound.
 */
import type { FastifyInstance } from "fastify";

export interface GracefulCloseResult {
  /** True when connections were still open at the end of the grace period and were cut. */
  readonly cut: boolean;
}

export async function gracefulClose(
  app: FastifyInstance,
  graceMs: number,
): Promise<GracefulCloseResult> {
  let cut = false;
  const timer = setTimeout(() => {
    cut = true;
    app.log.warn(
      { grace_ms: graceMs },
      "grace period over; closing the remaining connections",
    );
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(timer);
  }
  return { cut };
}
