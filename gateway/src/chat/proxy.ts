/**
 * The pass-through path (no agent loop): the provider's answer goes back with its status,
 * content type and body. A stream (`text/event-stream`) is piped chunk for chunk as it
 * arrives, through one small transform that only takes timings (and renames aliased tool
 * names when the request needed aliases); the caller going away destroys the pipe, which
 * aborts the upstream request.
 */
import { performance } from "node:perf_hooks";
import { pipeline, Transform } from "node:stream";

import type { FastifyReply } from "fastify";

import { GatewayError } from "../errors.js";
import type { OpenCall } from "./upstream-call.js";
import { readAll } from "./upstream-call.js";
import { tokensOfBody, tokensOfSse } from "./usage-tokens.js";

/** Replaces `"<alias>"` by the JSON string of the aggregated name. */
export function renameAliases(text: string, aliases: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [alias, name] of aliases) out = out.replaceAll(`"${alias}"`, JSON.stringify(name));
  return out;
}

export async function forward(reply: FastifyReply, call: OpenCall, stream: boolean, aliases: ReadonlyMap<string, string>): Promise<void> {
  const ok = call.status >= 200 && call.status < 300;
  if (stream && ok && call.contentType.includes("text/event-stream")) {
    streamThrough(reply, call, aliases);
    return;
  }
  let buf = await readAll(call, tokensOfBody);
  if (ok && aliases.size > 0) buf = Buffer.from(renameAliases(buf.toString("utf8"), aliases));
  await reply.code(call.status).header("content-type", call.contentType).send(buf);
}

function streamThrough(reply: FastifyReply, call: OpenCall, aliases: ReadonlyMap<string, string>): void {
  const ctx = call.ctx;
  const observe = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const now = performance.now();
      if (ctx.firstChunkAt === 0) ctx.firstChunkAt = now;
      else ctx.interChunkSeconds.push((now - ctx.lastChunkAt) / 1000);
      ctx.lastChunkAt = now;
      if (chunk.includes('"usage"')) {
        const t = tokensOfSse(chunk.toString("utf8"));
        if (t) {
          ctx.inputTokens = t.input;
          ctx.outputTokens = t.output;
        }
      }
      done(null, aliases.size > 0 ? Buffer.from(renameAliases(chunk.toString("utf8"), aliases)) : chunk);
    },
  });
  // Listening before pipeline does: fastify then sees a 502 naming the provider, not a socket error.
  let broke = false;
  const body = call.body.stream();
  body.once("error", (e: Error) => {
    if (call.signal.aborted) return;
    broke = true;
    observe.destroy(new GatewayError("TG_ERR_UPSTREAM", `the stream from provider "${call.ctx.provider}" broke: ${e.message}`, undefined, { cause: e }));
  });
  pipeline(body, observe, (err) => {
    if (!err) return call.end({ success: true });
    // Otherwise the caller left: fastify destroyed the pipe, which aborted the upstream body.
    call.end({ success: false, reason: broke ? "network" : "cancelled" });
  });
  void reply.code(call.status).header("content-type", call.contentType).header("cache-control", "no-cache").header("x-accel-buffering", "no").send(observe);
}
