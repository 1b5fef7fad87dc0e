/**
 * Shared by the telemetry tests: a small fastify app with the metrics plugins, a scraper that
 * parses /metrics with a real Prometheus text parser, and the rule for tests that need the
 * Debian `prometheus` package (fail in CI, skip with a printed reason locally).
 */
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { Readable } from "node:stream";

import Fastify, { type FastifyInstance } from "fastify";
import pino, { type Logger } from "pino";
import { test } from "vitest";

import { GatewayConfig } from "../src/config/schema.js";
import { adminAuth } from "../src/http/admin-auth.js";
import { errorHandler, notFoundHandler } from "../src/http/error-handler.js";
import {
  createTelemetry,
  type Telemetry,
  type TelemetryOptions,
} from "../src/telemetry/index.js";

export interface Sample {
  readonly labels: Record<string, string>;
  readonly value?: string;
  readonly buckets?: Record<string, string>;
  readonly count?: string;
  readonly sum?: string;
}
export interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  readonly metrics: readonly Sample[];
}

// The package ships no types; its output shape is documented in its README (prom2json-like).
const parsePrometheus = createRequire(import.meta.url)(
  "parse-prometheus-text-format",
) as (text: string) => Family[];

const labelKey = (labels: Record<string, string>): string =>
  JSON.stringify(
    Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );

/**
 * The parser folds every histogram into one unlabelled sample (it only handles histograms
 * without labels). So histograms are re-typed `untyped` before parsing, which makes the parser
 * read each `_bucket`, `_sum` and `_count` line with its labels, and are then regrouped per
 * label set here.
 */
function regroupHistogram(
  name: string,
  help: string,
  parts: readonly Family[],
): Family {
  const byLabels = new Map<
    string,
    {
      labels: Record<string, string>;
      buckets: Record<string, string>;
      count?: string;
      sum?: string;
    }
  >();
  const entry = (
    labels: Record<string, string>,
  ): {
    labels: Record<string, string>;
    buckets: Record<string, string>;
    count?: string;
    sum?: string;
  } => {
    const key = labelKey(labels);
    let e = byLabels.get(key);
    if (e === undefined) {
      e = { labels, buckets: {} };
      byLabels.set(key, e);
    }
    return e;
  };
  for (const part of parts) {
    for (const m of part.metrics) {
      const { le, ...labels } = m.labels ?? {};
      const e = entry(labels);
      if (part.name === `${name}_bucket` && le !== undefined)
        e.buckets[le] = m.value ?? "";
      else if (part.name === `${name}_sum`) e.sum = m.value ?? "";
      else if (part.name === `${name}_count`) e.count = m.value ?? "";
    }
  }
  return { name, help, type: "HISTOGRAM", metrics: [...byLabels.values()] };
}

/** Families by name; samples without labels get `{}` so comparisons stay uniform. */
export function parseMetrics(text: string): Map<string, Family> {
  const histograms = new Set(
    [...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((m) => m[1]!),
  );
  const raw = parsePrometheus(
    text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"),
  );
  const parts = new Map<string, Family[]>();
  for (const f of raw) parts.set(f.name, [...(parts.get(f.name) ?? []), f]);
  const out = new Map<string, Family>();
  for (const [name, fams] of parts) {
    if (histograms.has(name)) {
      const pieces = ["_bucket", "_sum", "_count"].flatMap(
        (suffix) => parts.get(`${name}${suffix}`) ?? [],
      );
      out.set(name, regroupHistogram(name, fams[0]!.help, pieces));
    } else if (
      ![...histograms].some(
        (h) =>
          name === `${h}_bucket` ||
          name === `${h}_sum` ||
          name === `${h}_count`,
      )
    ) {
      const metrics = fams
        .flatMap((f) => f.metrics)
        .map((m) => ({ ...m, labels: m.labels ?? {} }));
      out.set(name, { ...fams[0]!, metrics });
    }
  }
  return out;
}

export const AUTH = { username: "scraper", password: "s3cret-pass" };

export interface LogCapture {
  readonly logger: Logger;
  readonly lines: Record<string, unknown>[];
}

export function captureLogs(): LogCapture {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) =>
        void lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  );
  return { logger, lines };
}

export interface TestApp {
  readonly app: FastifyInstance;
  readonly telemetry: Telemetry;
  readonly url: string;
  readonly logs: LogCapture;
  scrape(): Promise<Map<string, Family>>;
  scrapeText(): Promise<string>;
  /** Resolves when GET /held has reached its handler. */
  readonly heldArrived: Promise<void>;
  /** Lets GET /held answer. */
  release(): void;
  close(): Promise<void>;
}

export async function startApp(
  options: Partial<Omit<TelemetryOptions, "logger">> & { auth?: boolean } = {},
): Promise<TestApp> {
  const logs = captureLogs();
  const telemetry = createTelemetry({
    customLabels: options.customLabels ?? [],
    logger: logs.logger,
    ...(options.prices ? { prices: options.prices } : {}),
  });
  const app = Fastify();
  // The gateway's own error envelope, 404 handler and admin auth, as buildApp wires them.
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  await app.register(telemetry.httpMetricsPlugin);
  const config = GatewayConfig.parse(
    options.auth === true ? { server: { auth: AUTH } } : {},
  );
  await app.register(telemetry.metricsRoute({ preHandler: adminAuth(config) }));
  app.get("/items/:id", (request, reply) =>
    reply.send({ id: (request.params as { id: string }).id }),
  );
  app.post("/echo", (request, reply) => reply.send(request.body));
  app.get("/fail", () => {
    throw new Error("boom");
  });
  app.get("/stream", (_request, reply) =>
    reply.type("text/plain").send(Readable.from(["chunk-1 ", "chunk-2"])),
  );
  // An endless stream (like an SSE connection): only the client ends it.
  app.get("/endless", (_request, reply) =>
    reply.type("text/event-stream").send(
      new Readable({
        read() {
          this.push("data: tick\n\n");
        },
      }),
    ),
  );
  // Answers only once the test releases it, so a client can give up first.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const heldArrived = new Promise<void>((resolve) => (arrived = resolve));
  app.get("/held", async () => {
    arrived();
    await released;
    return { ok: true };
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  const headers: Record<string, string> =
    options.auth === true
      ? {
          authorization: `Basic ${Buffer.from(`${AUTH.username}:${AUTH.password}`).toString("base64")}`,
        }
      : {};
  const scrapeText = async (): Promise<string> => {
    const res = await fetch(`${url}/metrics`, { headers });
    if (res.status !== 200)
      throw new Error(
        `GET /metrics answered ${res.status}: ${await res.text()}`,
      );
    return res.text();
  };
  return {
    app,
    telemetry,
    url,
    logs,
    scrapeText,
    scrape: async () => parseMetrics(await scrapeText()),
    release,
    heldArrived,
    close: async () => {
      release();
      await app.close();
    },
  };
}

/** Sends a request and reads the body to the end, so the server has finished the response. */
export async function send(
  url: string,
  init: RequestInit = {},
): Promise<number> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return res.status;
}

/** The samples of one family as {labels, value}; histograms as {labels, count, sum}. */
export function series(families: Map<string, Family>, name: string): Sample[] {
  const family = families.get(name);
  if (family === undefined)
    throw new Error(`metric family ${name} is not exported`);
  return [...family.metrics];
}

export function findExecutable(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * `test` when `tool` is installed. Missing: in CI (`CI=true`) the test still runs and fails on
 * `requireExecutable`; locally it is skipped, and the test's name says why.
 */
export function testWithTool(
  tool: string,
): (name: string, fn: () => Promise<void>, timeout?: number) => void {
  const skip = findExecutable(tool) === undefined && process.env.CI !== "true";
  if (skip)
    console.warn(
      `skipping ${tool} tests: ${tool} is not installed (apt-get install -y prometheus)`,
    );
  const reason = ` (skipped outside CI when ${tool} is not installed)`;
  return (name, fn, timeout) =>
    test.skipIf(skip)(`${name}${reason}`, fn, timeout);
}

export function requireExecutable(name: string): string {
  const path = findExecutable(name);
  if (path === undefined)
    throw new Error(
      `${name} is not installed; CI installs Debian's prometheus package (apt-get install -y prometheus)`,
    );
  return path;
}
