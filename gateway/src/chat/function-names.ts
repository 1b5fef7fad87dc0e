/**
 * Providers accept function names of at most 64 characters of `[a-zA-Z0-9_-]`. Aggregated
 * tool names (`<client>_<tool>`) can be longer or use other characters (MCP allows dots,
 * slashes, ...). Such names are sent as a stable alias: the name with other characters
 * replaced by `_`, truncated, then `_` and 8 hex digits of the SHA-256 of the full name. The
 * alias stays readable (it starts like the tool name), is the same in every request and on
 * every pod, and is mapped back to the tool when the model calls it.
 */
import { createHash } from "node:crypto";

export const MAX_FUNCTION_NAME = 64;
const VALID = /^[a-zA-Z0-9_-]{1,64}$/;
const HASH_LEN = 8;

// Tool names are few and long-lived; the cache is bounded by the number of distinct tools.
const cache = new Map<string, string>();

export function functionName(name: string): string {
  if (VALID.test(name)) return name;
  let alias = cache.get(name);
  if (alias === undefined) {
    const hash = createHash("sha256")
      .update(name)
      .digest("hex")
      .slice(0, HASH_LEN);
    const readable = name
      .replace(/[^a-zA-Z0-9_-]/g, "_")
      .slice(0, MAX_FUNCTION_NAME - HASH_LEN - 1);
    alias = `${readable}_${hash}`;
    cache.set(name, alias);
  }
  return alias;
}
