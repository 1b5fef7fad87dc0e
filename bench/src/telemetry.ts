/**
 * Cost of the HTTP metrics (SPEC 11: collection adds no latency): the same fastify route served
 * with and without `httpMetricsPlugin`, over real keep-alive HTTP, 16 requests in flight,
 * interleaved rounds. Target: the plugin costs at most 5% of throughput.
 */
import { Agent, request } from "node:http";

import { createTelemetry } from "@toolgate/gateway";
import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";

import type { BenchResult } from "./harness.js";
import { compare, result } from "./harness.js";

const CONCURRENCY = 16;

async function server(withMetrics: boolean): Promise<{ app: FastifyInstance; port: number }> {
  const app = Fastify();
  if (withMetrics) {
    const telemetry = createTelemetry({ customLabels: ["team"], logger: pino({ level: "silent" }) });
    await app.register(telemetry.httpMetricsPlugin);
    await app.register(telemetry.metricsRoute());
  }
  app.get("/items/:id", (req, reply) => reply.send({ id: (req.params as { id: string }).id, ok: true }));
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { app, port: address.port };
}

function client(port: number): () => Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let n = 0;
  return () =>
    new Promise<void>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: `/items/${n++ % 100}`,
          agent,
          headers: { "x-bf-prom-team": "bench" },
        },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
}

export async function run(): Promise<BenchResult[]> {
  const off = await server(false);
  const on = await server(true);
  try {
    const sides = await compare(client(off.port), client(on.port), {
      concurrency: CONCURRENCY,
      rounds: 15,
      perRound: 1000,
      warmup: 2000,
    });
    const base = sides.baseline.ops_per_s ?? 0;
    const tg = sides.toolgate.ops_per_s ?? 0;
    const lossPct = Math.round((1 - tg / base) * 1000) / 10;
    return [
      result(
        "telemetry.http.c16",
        sides,
        "toolgate.ops_per_s >= 0.95 * baseline.ops_per_s",
        () => tg >= 0.95 * base,
        {
          throughput_loss_pct: lossPct,
        },
      ),
    ];
  } finally {
    await off.app.close();
    await on.app.close();
  }
}
