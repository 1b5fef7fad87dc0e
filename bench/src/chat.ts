/**
 * Chat proxy overhead (issue 6): POST /v1/chat/completions through Toolgate vs the same
 * request sent straight to the same upstream, over real keep-alive HTTP, interleaved rounds.
 * The upstream is a minimal OpenAI-compatible responder (a fixed completion; for streams the
 * first chunk at once and the rest 2 ms later), so the figures are the gateway's own cost.
 * The upstream runs in a worker thread (its own event loop, as a remote provider would), so
 * both sides cross the same thread boundary to reach it; Toolgate runs on the measuring
 * thread, so its figures add only Toolgate's own work and no extra thread hand-off (on a
 * loaded 2-core machine every hand-off costs a scheduling slice, which is noise, not gateway).
 * Targets: concurrency 1 p50 added <= 1 ms and p99 added <= 3 ms; concurrency 16 p99 added
 * <= 5 ms; streaming time to first chunk added <= 1 ms.
 */
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  isMainThread,
  parentPort,
  Worker,
  workerData,
} from "node:worker_threads";

import type { ToolRegistry } from "@toolgate/gateway";
import { createChat, GatewayConfig } from "@toolgate/gateway";
import Fastify, { type FastifyInstance } from "fastify";
import { pino } from "pino";

import type { BenchResult, Side } from "./harness.js";
import { compare, result } from "./harness.js";

const COMPLETION = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created: 1_700_000_000,
  model: "bench-model",
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: "The quick brown fox jumps over the lazy dog. ".repeat(6),
        refusal: null,
      },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 60, total_tokens: 180 },
});

const chunk = (content: string): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "bench-model", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

const REQUEST = {
  messages: [
    {
      role: "system",
      content: "You are a helpful assistant that answers briefly.",
    },
    {
      role: "user",
      content:
        "Summarise the plot of a long novel in two sentences, please. ".repeat(
          4,
        ),
    },
    {
      role: "assistant",
      content: "Certainly. Which novel would you like me to summarise?",
    },
    { role: "user", content: "Any classic will do." },
  ],
  temperature: 0.2,
};

async function upstream(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      const stream = Buffer.concat(parts).includes('"stream":true');
      if (!stream) {
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(COMPLETION);
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chunk("Hello"));
      setTimeout(() => res.end(`${chunk(" world")}data: [DONE]\n\n`), 2);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, port: (server.address() as AddressInfo).port };
}

const noTools: ToolRegistry = {
  version: 0,
  list: () => [],
  resolve: () => undefined,
  isVisible: () => false,
  call: () => Promise.reject(new Error("no tools in the bench")),
  onChange: () => () => undefined,
};

async function toolgate(
  upstreamPort: number,
): Promise<{ app: FastifyInstance; port: number }> {
  const config = GatewayConfig.parse({
    providers: { up: { base_url: `http://127.0.0.1:${upstreamPort}/v1` } },
  });
  const chat = createChat({
    getConfig: () => config,
    registry: noTools,
    governance: { resolveCaller: () => ({}) },
    logger: pino({ level: "silent" }),
  });
  const app = Fastify();
  await app.register(chat.plugin);
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, port: (app.server.address() as AddressInfo).port };
}

/** POST a chat request; resolves at the end of the body, or at the first body chunk when `firstChunk`. */
function poster(
  port: number,
  model: string,
  stream: boolean,
  concurrency: number,
): () => Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const body = JSON.stringify({
    model,
    ...REQUEST,
    ...(stream ? { stream: true } : {}),
  });
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/v1/chat/completions",
          agent,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          },
        },
        (res) => {
          if (res.statusCode !== 200)
            reject(new Error(`status ${res.statusCode}`));
          if (stream) res.once("data", () => resolve());
          else res.on("end", () => resolve());
          res.resume();
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}

const added = (
  s: { baseline: Side; toolgate: Side },
  key: "p50_ms" | "p99_ms",
): number => Math.round((s.toolgate[key] - s.baseline[key]) * 1000) / 1000;

interface Role {
  readonly bench: "chat";
  readonly role: "upstream";
}

function isRole(v: unknown): v is Role {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { bench?: unknown }).bench === "chat"
  );
}

if (!isMainThread && isRole(workerData)) {
  parentPort?.postMessage((await upstream()).port);
}

function spawnUpstream(): Promise<{ worker: Worker; port: number }> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { bench: "chat", role: "upstream" } satisfies Role,
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ worker, port }));
    worker.once("error", reject);
  });
}

export async function run(): Promise<BenchResult[]> {
  const up = await spawnUpstream();
  const tg = await toolgate(up.port);
  const out: BenchResult[] = [];
  try {
    const c1 = await compare(
      poster(up.port, "m", false, 1),
      poster(tg.port, "up/m", false, 1),
      { rounds: 7, perRound: 400, warmup: 500 },
    );
    const c1p99 = added(c1, "p99_ms");
    out.push(
      result(
        "chat.c1",
        c1,
        "added_p50_ms<=1 && added_p99_ms<=3",
        (r) => r.added_p50_ms <= 1 && c1p99 <= 3,
        { added_p99_ms: c1p99 },
      ),
    );

    const c16 = await compare(
      poster(up.port, "m", false, 16),
      poster(tg.port, "up/m", false, 16),
      { rounds: 7, perRound: 1600, warmup: 1600, concurrency: 16 },
    );
    const c16p99 = added(c16, "p99_ms");
    out.push(
      result("chat.c16", c16, "added_p99_ms<=5", () => c16p99 <= 5, {
        added_p99_ms: c16p99,
      }),
    );

    const ttfc = await compare(
      poster(up.port, "m", true, 1),
      poster(tg.port, "up/m", true, 1),
      { rounds: 7, perRound: 300, warmup: 300 },
    );
    out.push(
      result(
        "chat.stream.ttfc",
        ttfc,
        "added_p50_ms<=1 (time to first chunk)",
        (r) => r.added_p50_ms <= 1,
      ),
    );
  } finally {
    await tg.app.close();
    await up.worker.terminate();
  }
  for (const r of out)
    console.error(
      `${r.bench}: direct p50 ${r.baseline.p50_ms} ms p99 ${r.baseline.p99_ms} ms | toolgate p50 ${r.toolgate.p50_ms} ms p99 ${r.toolgate.p99_ms} ms | ratio ${r.ratio}`,
    );
  return out;
}
