/**
 * Turning `state.redis_url` into ioredis options, and the failure bounds every connection uses.
 *
 * Supported URLs:
 * - `redis://[[user]:password@]host[:port][/db]`: one Redis (a primary).
 * - `rediss://...`: the same over TLS (ioredis' defaults: the system CAs, hostname checked).
 * - `redis+sentinel://[[user]:password@]host1:26379[,host2:26379...]/<masterName>[/db]`:
 *   Redis Sentinel; the gateway asks the sentinels for the current primary and follows
 *   failovers. The user/password are the primary's; a sentinel password, if the sentinels
 *   need one, goes in `?sentinelPassword=...`; `?tls=true` turns on TLS to the primary.
 * - Redis Cluster is NOT supported: listing by prefix SCANs one server and the fleet keys
 *   are not hash-tagged. Use a single primary (with replicas and Sentinel, or a managed
 *   "cluster mode disabled" service). The URL checks refuse `redis+cluster://`.
 *
 * Failure bounds (why each option): a command waits at most `COMMAND_TIMEOUT_MS`
 * (`commandTimeout`, plus our own deadline that also covers waiting for the first connect);
 * no offline queue (`enableOfflineQueue: false`), so nothing queued during an outage is sent
 * later, after its caller was already told it failed; `maxRetriesPerRequest: 0` and
 * `autoResendUnfulfilledCommands: false`, so a command in flight when the connection dropped
 * is never replayed (an INCR must not count twice); reconnect attempts at most 1 s apart, so
 * the store is back within about a second of Redis.
 */
import type { RedisOptions } from "ioredis";

import { GatewayError } from "../errors.js";

export const COMMAND_TIMEOUT_MS = 1000;

/** ioredis' own type declares `replyMapping` in a way `exactOptionalPropertyTypes` cannot satisfy; we never set it. */
export type ConnectionOptions = Omit<RedisOptions, "replyMapping">;
const MAX_RECONNECT_DELAY_MS = 1000;

export interface RedisTarget {
  /** The URL for ioredis, or undefined when `options` is complete (Sentinel). */
  readonly url: string | undefined;
  readonly options: ConnectionOptions;
  /** Where it points, without credentials, for logs and error messages. */
  readonly display: string;
}

export function boundedOptions(connectionName: string): ConnectionOptions {
  return {
    commandTimeout: COMMAND_TIMEOUT_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 2000,
    retryStrategy: (times: number) =>
      Math.min(100 * times, MAX_RECONNECT_DELAY_MS),
    connectionName,
  };
}

function invalid(why: string): GatewayError {
  return new GatewayError("TG_ERR_CONFIG_INVALID", `state.redis_url ${why}`);
}

function splitAuth(rest: string): {
  auth: string | undefined;
  hostPart: string;
} {
  const at = rest.lastIndexOf("@");
  return at === -1
    ? { auth: undefined, hostPart: rest }
    : { auth: rest.slice(0, at), hostPart: rest.slice(at + 1) };
}

/** `user:password`, `:password` or `password` (the forms redis:// URLs allow). */
function credentials(auth: string | undefined): {
  username?: string;
  password?: string;
} {
  if (auth === undefined) return {};
  const colon = auth.indexOf(":");
  const password = decodeURIComponent(
    colon === -1 ? auth : auth.slice(colon + 1),
  );
  return colon > 0
    ? { username: decodeURIComponent(auth.slice(0, colon)), password }
    : { password };
}

function sentinelTarget(url: string): RedisTarget {
  const [main = "", query = ""] = url
    .slice("redis+sentinel://".length)
    .split("?", 2);
  const { auth, hostPart } = splitAuth(main);
  const [hosts = "", name, db] = hostPart.split("/");
  if (!name)
    throw invalid(
      'for Sentinel needs the primary\'s name: "redis+sentinel://host:26379,host2:26379/<masterName>"',
    );
  const sentinels = hosts.split(",").map((h) => {
    const [host = "", port = "26379"] = h.split(":");
    if (!host || !/^\d+$/.test(port))
      throw invalid(`has an invalid sentinel address "${h}"; use host:port`);
    return { host, port: Number(port) };
  });
  const params = new URLSearchParams(query);
  const options: ConnectionOptions = { sentinels, name, ...credentials(auth) };
  if (db) options.db = Number(db);
  const sentinelPassword = params.get("sentinelPassword");
  if (sentinelPassword) options.sentinelPassword = sentinelPassword;
  if (params.get("tls") === "true") options.tls = {};
  return {
    url: undefined,
    options,
    display: `redis+sentinel://${hosts}/${name}`,
  };
}

/** Parses and checks the URL; throws TG_ERR_CONFIG_INVALID with the fix for anything unsupported. */
export function redisTarget(url: string): RedisTarget {
  if (url.startsWith("redis+sentinel://")) return sentinelTarget(url);
  if (url.startsWith("redis+cluster://"))
    throw invalid(
      "points at Redis Cluster, which is not supported; use a single primary or Sentinel",
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(
      'is not a URL; use "redis://host:6379", "rediss://host:6380" or "redis+sentinel://host:26379/<masterName>"',
    );
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw invalid(
      `has the scheme "${parsed.protocol}"; use redis://, rediss:// (TLS) or redis+sentinel://`,
    );
  }
  return {
    url,
    options: {},
    display: `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`,
  };
}
