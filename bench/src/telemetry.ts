/**
 * Cost of the HTTP metrics (SPEC 11: collection adds no latency): the same fastify route served
 * with and without `httpMetricsPlugin` (each server in its own worker thread, so the client in
 * the main thread does not share an event loop with either), over real keep-alive HTTP, 16
 * requests in flight, interleaved rounds. Target: the plugin costs at most 5% of throughput.
 */
import { Agent, request } from "node:http";
import {
  isMainThread,
  parentPort,
  Worker,
  workerData,
} from "node:worker_threads";

import { createTelemetry } from "@toolgate/gateway";
import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";

import type { BenchResult } from "./harness.js";
import { compare, median, result } from "./harness.js";

const CONCURRENCY = 16;

interface Role {
  readonly bench: "telemetry";
  readonly metrics: boolean;
}

function isRole(v: unknown): v is Role {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { bench?: unknown }).bench === "telemetry"
  );
}

async function serve(withMetrics: boolean): Promise<number> {
  const app = Fastify();
  if (withMetrics) {
    const telemetry = createTelemetry({
      customLabels: ["team"],
      logger: pino({ level: "silent" }),
    });
    await app.register(telemetry.httpMetricsPlugin);
    await app.register(telemetry.metricsRoute());
  }
  app.get("/items/:id", (req, reply) =>
    reply.send({ id: (req.params as { id: string }).id, ok: true }),
  );
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string")
    throw new Error("no port");
  return address.port;
}

if (!isMainThread && isRole(workerData)) {
  parentPort?.postMessage(await serve(workerData.metrics));
}

function spawn(metrics: boolean): Promise<{ worker: Worker; port: number }> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { bench: "telemetry", metrics } satisfies Role,
  });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ worker, port }));
    worker.once("error", reject);
  });
}

async function injectApp(withMetrics: boolean): Promise<FastifyInstance> {
  const app = Fastify();
  if (withMetrics) {
    const telemetry = createTelemetry({
      customLabels: ["team"],
      logger: pino({ level: "silent" }),
      collectDefault: false,
    });
    await app.register(telemetry.httpMetricsPlugin);
  }
  app.get("/items/:id", (_req, reply) => reply.send("ok"));
  await app.ready();
  return app;
}

/**
 * CPU microseconds per request through fastify.inject with and without the plugin (interleaved,
 * medians of 7 rounds): a diagnostic that a loaded machine moves less than throughput.
 */
async function cpuPerRequest(): Promise<{
  baseline: number;
  toolgate: number;
}> {
  const apps = [await injectApp(false), await injectApp(true)] as const;
  const n = 5000;
  const time = async (app: FastifyInstance): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++)
      await app.inject({
        method: "GET",
        url: `/items/${i % 100}`,
        headers: { "x-bf-prom-team": "bench" },
      });
    const used = process.cpuUsage(start);
    return (used.user + used.system) / n;
  };
  await time(apps[0]);
  await time(apps[1]);
  const rounds: [number[], number[]] = [[], []];
  for (let r = 0; r < 7; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0])
      rounds[i as 0 | 1].push(await time(apps[i as 0 | 1]));
  }
  await Promise.all(apps.map((a) => a.close()));
  const r2 = (x: number): number => Math.round(x * 100) / 100;
  return { baseline: r2(median(rounds[0])), toolgate: r2(median(rounds[1])) };
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
            res.statusCode === 200
              ? resolve()
              : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
}

export async function run(): Promise<BenchResult[]> {
  const off = await spawn(false);
  const on = await spawn(true);
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
    const cpu = await cpuPerRequest();
    return [
      result(
        "telemetry.http.c16",
        sides,
        "toolgate.ops_per_s >= 0.95 * baseline.ops_per_s",
        () => tg >= 0.95 * base,
        { throughput_loss_pct: lossPct, inject_cpu_us_per_request: cpu },
      ),
    ];
  } finally {
    await Promise.all([off.worker.terminate(), on.worker.terminate()]);
  }
}
