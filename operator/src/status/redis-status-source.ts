/**
 * `StatusSource` over Redis, reading what the gateway pods write through their state store
 * (the layout is the gateway's, documented in `gateway/src/state/keys.ts`; keys under a
 * prefix, `toolgate:` by default; values are the envelope `{"v":1,"rev":n,"data":...}`):
 *
 * - `<prefix>health:<clientName>:<podId>`: one pod's report of one client (a
 *   `PodClientReport`: pod, state, toolCount, tools, lastError, updatedAt), with a TTL, so a
 *   dead pod's reports vanish. Found with SCAN (MATCH `<prefix>health:<clientName>:*`), read
 *   with MGET.
 * - `<prefix>oauth:<clientName>`: `{status, authorizeUrl?, error?}` (an `OAuthReport`).
 *
 * A value of another version, or one that does not parse, is skipped (a newer gateway during
 * a rolling upgrade must not break the operator's status).
 */
import { Redis } from "ioredis";
import { z } from "zod";

import {
  type ClientRuntime,
  OAuthReport,
  PodClientReport,
  type StatusSource,
} from "./status-source.js";

export const DEFAULT_PREFIX = "toolgate:";

/** Key of one pod's report; the `:` after the client keeps `api` from matching `api2`. */
export const clientHealthKey = (
  prefix: string,
  clientId: string,
  podId: string,
): string => `${prefix}health:${clientId}:${podId}`;
export const oauthKey = (prefix: string, clientId: string): string =>
  `${prefix}oauth:${clientId}`;

function versioned<T extends z.ZodType>(
  schema: T,
  raw: string | null | undefined,
): z.infer<T> | undefined {
  if (raw === null || raw === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const env = z.object({ v: z.literal(1), data: z.unknown() }).safeParse(json);
  if (!env.success) return undefined;
  const data = schema.safeParse(env.data.data);
  return data.success ? data.data : undefined;
}

export class RedisStatusSource implements StatusSource {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix: string = DEFAULT_PREFIX,
  ) {
    // Status is best effort: fail a read fast instead of queueing it while Redis is away.
    this.redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: true,
      maxRetriesPerRequest: 1,
    });
  }

  private async healthKeys(clientId: string): Promise<string[]> {
    const match = `${clientHealthKey(this.prefix, clientId, "").replaceAll(/[*?[\]\\]/g, "\\$&")}*`;
    const found = new Set<string>();
    let cursor = "0";
    do {
      const [next, batch] = await this.redis.scan(
        cursor,
        "MATCH",
        match,
        "COUNT",
        500,
      );
      for (const k of batch) found.add(k);
      cursor = next;
    } while (cursor !== "0");
    return [...found];
  }

  async read(clientId: string): Promise<ClientRuntime> {
    const [keys, oauth] = await Promise.all([
      this.healthKeys(clientId),
      this.redis.get(oauthKey(this.prefix, clientId)),
    ]);
    const pods = keys.length > 0 ? await this.redis.mget(keys) : [];
    const reports = pods
      .map((raw) => versioned(PodClientReport, raw))
      .filter((r): r is PodClientReport => r !== undefined)
      .sort((a, b) => (a.pod < b.pod ? -1 : 1));
    const o = versioned(OAuthReport, oauth);
    return o ? { pods: reports, oauth: o } : { pods: reports };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
