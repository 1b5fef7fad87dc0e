/**
 * `StatusSource` over Redis, reading what the gateway pods write (keys under a prefix,
 * `toolgate:` by default; values are versioned JSON `{"v":1,"data":...}`):
 *
 * - `<prefix>clienthealth:<clientId>`: a hash, field = pod id, value = `{"v":1,"data":
 *   {"pod","state","toolCount","tools","lastError","updatedAt"}}` (a `PodClientReport`).
 * - `<prefix>oauth:<clientId>`: a string, `{"v":1,"data":{"status","authorizeUrl","error"}}`
 *   (an `OAuthReport`).
 *
 * A value of another version, or one that does not parse, is skipped (a newer gateway during
 * a rolling upgrade must not break the operator's status).
 */
import { Redis } from "ioredis";
import { z } from "zod";

import { type ClientRuntime, OAuthReport, PodClientReport, type StatusSource } from "./status-source.js";

export const DEFAULT_PREFIX = "toolgate:";

export const clientHealthKey = (prefix: string, clientId: string): string =>
  `${prefix}clienthealth:${clientId}`;
export const oauthKey = (prefix: string, clientId: string): string => `${prefix}oauth:${clientId}`;

function versioned<T extends z.ZodType>(schema: T, raw: string | null | undefined): z.infer<T> | undefined {
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
    this.redis = new Redis(url, { lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  }

  async read(clientId: string): Promise<ClientRuntime> {
    const [pods, oauth] = await Promise.all([
      this.redis.hgetall(clientHealthKey(this.prefix, clientId)),
      this.redis.get(oauthKey(this.prefix, clientId)),
    ]);
    const reports = Object.values(pods)
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
