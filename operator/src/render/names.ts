/**
 * How Kubernetes names become gateway names and Secret keys.
 *
 * Client names (SPEC 2.1) allow letters, digits and `_`; Kubernetes names allow lowercase
 * letters, digits, `-` and `.`. The mapping replaces `-` with `_` (`web-search` ->
 * `web_search`). Names with a `.` are rejected rather than mapped, because `.` has no
 * spelling of its own left (`a.b` and `a-b` would collide); so are names starting with a
 * digit, which SPEC 2.1 forbids.
 *
 * Secret keys double as environment variable names (`env.<KEY>` references, resolved from
 * the environment or the mounted Secret's files), so they are `[A-Z0-9_]`:
 * `TG_MCPC_<CLIENT>_HEADER_<i>` (i = index of the header name in sorted order),
 * `TG_MCPC_<CLIENT>_OAUTH_CLIENT_SECRET` and `TG_VK_<NAME>_<hash8>` for a virtual key, where
 * the hash of the key's name keeps `a-b` and `a.b` apart.
 */
import { createHash } from "node:crypto";

import { CLIENT_NAME_PATTERN } from "@toolgate/gateway";

export type NameResult =
  { ok: true; name: string } | { ok: false; message: string };

export function clientNameOf(resourceName: string): NameResult {
  if (resourceName.includes(".")) {
    return {
      ok: false,
      message: `name "${resourceName}" contains "."; MCPClient names map to client names by turning "-" into "_", and "." has no mapping: rename it with "-" instead`,
    };
  }
  const name = resourceName.replaceAll("-", "_");
  if (!CLIENT_NAME_PATTERN.test(name)) {
    return {
      ok: false,
      message: `name "${resourceName}" maps to client name "${name}", which must not start with a digit: rename it to start with a letter`,
    };
  }
  return { ok: true, name };
}

/** A VirtualKey's `mcpClientName` may be written as the client name or as the MCPClient's name. */
export function normaliseClientRef(ref: string): string {
  return ref.replaceAll("-", "_");
}

function envPart(s: string): string {
  return s.toUpperCase().replaceAll(/[^A-Z0-9_]/g, "_");
}

export function headerSecretKey(clientName: string, index: number): string {
  return `TG_MCPC_${envPart(clientName)}_HEADER_${index}`;
}

export function oauthSecretKey(clientName: string): string {
  return `TG_MCPC_${envPart(clientName)}_OAUTH_CLIENT_SECRET`;
}

export function virtualKeySecretKey(keyName: string): string {
  const hash = createHash("sha256")
    .update(keyName)
    .digest("hex")
    .slice(0, 8)
    .toUpperCase();
  return `TG_VK_${envPart(keyName)}_${hash}`;
}

export function envRef(key: string): string {
  return `env.${key}`;
}
