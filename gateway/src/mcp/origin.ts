/**
 * Origin validation for /mcp (the streamable HTTP transport's DNS-rebinding defence): a request
 * that carries an Origin is allowed when the origin is listed in `client.allowed_origins`
 * (or the list holds "*"), or when it is a loopback origin (a tool on the same machine).
 * Requests without Origin (non-browser clients) are not affected.
 */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isOriginAllowed(
  origin: string,
  allowed: readonly string[],
): boolean {
  if (allowed.includes("*") || allowed.includes(origin)) return true;
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}
