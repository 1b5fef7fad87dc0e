/**
 * Lua scripts, so each read-modify-write is one atomic step on the Redis server. Every script
 * touches exactly one key (Cluster-safe if it is ever supported). The envelope's `rev` is read
 * with a pattern because we always write `{"v":1,"rev":<n>,` first (see envelope.ts).
 */
import { createHash } from "node:crypto";

export interface Script {
  readonly lua: string;
  readonly sha: string;
}

function script(lua: string): Script {
  return { lua, sha: createHash("sha1").update(lua).digest("hex") };
}

/** KEYS[1]; ARGV: dataJson, ttlMs or "", expectedRev or "". Returns {1, newRev} or {0, rev, current}. */
export const WRITE = script(`
local cur = redis.call('GET', KEYS[1])
local rev = 0
if cur then rev = tonumber(string.match(cur, '^{"v":1,"rev":(%d+),')) or 0 end
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= rev then return {0, rev, cur} end
local text = '{"v":1,"rev":' .. (rev + 1) .. ',"data":' .. ARGV[1] .. '}'
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], text, 'PX', ARGV[2]) else redis.call('SET', KEYS[1], text) end
return {1, rev + 1}
`);

/** KEYS[1]; ARGV: by, ttlMs or "". The TTL applies only when the counter has none (a window starts once). */
export const INCR = script(`
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if ARGV[2] ~= '' and redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n
`);

/** KEYS[1]; ARGV: owner. Deletes only the owner's lock. */
export const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** KEYS[1]; ARGV: owner, ttlMs. Renews only the owner's lock. */
export const EXTEND = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);
