import { describe, expect, it } from "vitest";

import { configuredRedisUrl } from "./create.js";
import { resolvePodId } from "./pod-id.js";
import { redisTarget } from "./redis-target.js";

describe("pod identity", () => {
  it.each([
    [{ TOOLGATE_POD_ID: "gw-1", HOSTNAME: "host" }, "gw-1"],
    [{ HOSTNAME: "toolgate-7d9f-abcde" }, "toolgate-7d9f-abcde"],
    [{ TOOLGATE_POD_ID: "a:b c" }, "a_b_c"],
  ])("takes the pod id from %j", (env, id) => {
    expect(resolvePodId(env)).toBe(id);
  });

  it("makes up a random id when neither variable is set", () => {
    expect(resolvePodId({})).toMatch(/^pod-[0-9a-f]{8}$/);
    expect(resolvePodId({})).not.toBe(resolvePodId({}));
  });
});

describe("Redis URL", () => {
  it("prefers state.redis_url over TOOLGATE_REDIS_URL and selects memory without either", () => {
    expect(
      configuredRedisUrl(
        { redis_url: "redis://a:6379" },
        { TOOLGATE_REDIS_URL: "redis://b:6379" },
      ),
    ).toBe("redis://a:6379");
    expect(
      configuredRedisUrl({}, { TOOLGATE_REDIS_URL: "redis://b:6379" }),
    ).toBe("redis://b:6379");
    expect(configuredRedisUrl({}, { TOOLGATE_REDIS_URL: "" })).toBeUndefined();
  });

  it("keeps credentials out of the display form", () => {
    expect(
      redisTarget("rediss://user:s3cret@redis.example:6380/2").display,
    ).toBe("rediss://redis.example:6380/2");
    expect(redisTarget("redis://:s3cret@127.0.0.1:6379").display).toBe(
      "redis://127.0.0.1:6379",
    );
  });

  it("parses a Sentinel URL into sentinels, primary name, credentials and options", () => {
    const t = redisTarget(
      "redis+sentinel://:p%40ss@s1:26379,s2:26380/mymaster/3?sentinelPassword=sp&tls=true",
    );
    expect(t.url).toBeUndefined();
    expect(t.options).toEqual({
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26380 },
      ],
      name: "mymaster",
      password: "p@ss",
      db: 3,
      sentinelPassword: "sp",
      tls: {},
    });
    expect(t.display).toBe("redis+sentinel://s1:26379,s2:26380/mymaster");
  });

  it.each([
    ["redis+cluster://a:7000", /Cluster, which is not supported/],
    ["http://redis:6379", /scheme "http:"/],
    ["not a url", /is not a URL/],
    ["redis+sentinel://s1:26379", /primary's name/],
  ])("refuses %s with the fix in the message", (url, message) => {
    expect(() => redisTarget(url)).toThrow(message);
  });
});
