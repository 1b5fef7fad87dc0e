/**
 * The pass-through path (no agent loop): the provider's answer goes back with its status,
 * content type and body. A stream (`text/event-stream`) is piped chunk for chunk as it
 * arrives, through one small transform that only takes timings (and renames aliased tool
 * names when the request needed aliases); the caller going away destroys the pipe, which
 * aborts the upstream request.
 */
import { performance } from "node:perf_hooks";
import type { TransformCallback } from "node:stream";
import { pipeline, Transform } from "node:stream";

import type { FastifyReply } from "fastify";

import { GatewayError } from "../errors.js";
import type { CallContext } from "./context-pool.js";
import type { OpenCall } from "./upstream-call.js";
import { readAll } from "./upstream-call.js";
import { tokensOfBody, tokensOfSse } from "./usage-tokens.js";

/** Replaces `"<alias>"` by the JSON string of the aggregated name. */
export function renameAliases(
  text: string,
  aliases: ReadonlyMap<string, string>,
): string {
  let out = text;
  for (const [alias, name] of aliases)
    out = out.replaceAll(`"${alias}"`, JSON.stringify(name));
  return out;
}

export async function forward(
  reply: FastifyReply,
  call: OpenCall,
  stream: boolean,
  aliases: ReadonlyMap<string, string>,
): Promise<void> {
  const ok = call.status >= 200 && call.status < 300;
  if (stream && ok && call.contentType.includes("text/event-stream")) {
    streamThrough(reply, call, aliases);
    return;
  }
  let buf = await readAll(call, tokensOfBody);
  if (ok && aliases.size > 0)
    buf = Buffer.from(renameAliases(buf.toString("utf8"), aliases));
  await reply
    .code(call.status)
    .header("content-type", call.contentType)
    .send(buf);
}

/**
 * Takes chunk timings and token usage, and renames aliases. A subclass, not
 * `new Transform({ transform })`: a closure per request kept in a property costs far more GC
 * work on node 24 (h1client/exchange.ts).
 */
class ObserveChunks extends Transform {
  constructor(
    private readonly ctx: CallContext,
    private readonly aliases: ReadonlyMap<string, string>,
  ) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _enc: BufferEncoding,
    done: TransformCallback,
  ): void {
    const ctx = this.ctx;
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
    done(
      null,
      this.aliases.size > 0
        ? Buffer.from(renameAliases(chunk.toString("utf8"), this.aliases))
        : chunk,
    );
  }
}

function streamThrough(
  reply: FastifyReply,
  call: OpenCall,
  aliases: ReadonlyMap<string, string>,
): void {
  const observe = new ObserveChunks(call.ctx, aliases);
  // Listening before pipeline does: fastify then sees a 502 naming the provider, not a socket error.
  let broke = false;
  const body = call.body.stream();
  body.once("error", (e: Error) => {
    if (call.signal.aborted) return;
    broke = true;
    observe.destroy(
      new GatewayError(
        "TG_ERR_UPSTREAM",
        `the stream from provider "${call.ctx.provider}" broke: ${e.message}`,
        undefined,
        { cause: e },
      ),
    );
  });
  pipeline(body, observe, (err) => {
    if (!err) return call.end({ success: true });
    // Otherwise the caller left: fastify destroyed the pipe, which aborted the upstream body.
    call.end({ success: false, reason: broke ? "network" : "cancelled" });
  });
  void reply
    .code(call.status)
    .header("content-type", call.contentType)
    .header("cache-control", "no-cache")
    .header("x-accel-buffering", "no")
    .send(observe);
}
