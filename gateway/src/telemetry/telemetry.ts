/**
 * One Telemetry per gateway process: its own prom-client Registry (never the global one, so
 * several apps in one process, as in tests, do not collide), the SPEC 11 metric families, the
 * recorders other parts report to, and the two fastify plugins.
 *
 * Custom labels (SPEC 11.3) change at runtime through `setCustomLabels` (PATCH /config, config
 * reload). prom-client fixes a family's label names at creation and a family cannot mix label
 * sets, so the families that carry custom labels (HTTP and provider, except the stream
 * histograms) are unregistered and created anew with the new names. Decision: series exported
 * under the old label set are dropped; the new families start from zero. Prometheus sees the old
 * series end (staleness) and new ones begin, and rate()/increase() over the new series are
 * correct from their first two scrapes. Keeping the old values would require putting them under
 * a label set they were not measured with, which would be wrong data. Everything without custom
 * labels (default process metrics, MCP metrics, stream latency histograms) keeps its values.
 */
import type { IncomingHttpHeaders } from "node:http";

import type { FastifyPluginCallback } from "fastify";
import type { Logger } from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";

import type { GatewayConfig } from "../config/schema.js";
import { createHttpMetrics, type HttpMetrics } from "./http-metrics.js";
import { httpMetricsPlugin } from "./http-plugin.js";
import {
  assignHeaderValues,
  type CustomLabelSet,
  customLabelSet,
} from "./labels.js";
import { createMcpMetrics } from "./mcp-metrics.js";
import { metricsRoute, type MetricsRouteOptions } from "./metrics-route.js";
import { pricesFromConfig, type PriceTable } from "./prices.js";
import {
  createProviderMetrics,
  createStreamMetrics,
  type ProviderMetrics,
} from "./provider-metrics.js";
import type {
  McpRecorder,
  ProviderCallResult,
  ProviderRecorder,
  ToolCallRecord,
} from "./types.js";

export interface TelemetryOptions {
  /** `client.prometheus_labels`. */
  readonly customLabels: readonly string[];
  readonly logger: Logger;
  /** Node.js process metrics (CPU, memory, event loop, GC); default true. */
  readonly collectDefault?: boolean;
  /** Prices for gateway_cost_total; see `pricesFromConfig`. Default: none (no cost recorded). */
  readonly prices?: PriceTable;
}

export interface Telemetry {
  readonly registry: Registry;
  readonly provider: ProviderRecorder;
  readonly mcp: McpRecorder;
  /** Register once on the root instance: records SPEC 11.1 for every route of the app. */
  readonly httpMetricsPlugin: FastifyPluginCallback;
  /** GET /metrics; pass the admin auth as `preHandler`. */
  metricsRoute(options?: MetricsRouteOptions): FastifyPluginCallback;
  /** Rebuilds the custom-labelled families when the names differ (see the file comment). */
  setCustomLabels(labels: readonly string[]): void;
  /** The custom label names in effect (configured names minus rejected ones). */
  customLabels(): readonly string[];
  /** Values for the current custom labels from `x-bf-prom-<label>` headers ("" when absent). */
  customLabelValues(headers: IncomingHttpHeaders): Record<string, string>;
  setPrices(prices: PriceTable): void;
  /** Config reload: custom labels from `client.prometheus_labels`, prices from `providers`. */
  applyConfig(config: Pick<GatewayConfig, "client" | "providers">): void;
  /** Applies deferred recordings now; the /metrics route and every scrape do this themselves. */
  flush(): void;
}

/** Logs each distinct failure once: a broken observation repeats on every request. */
function failureReporter(logger: Logger): (error: unknown) => void {
  const seen = new Set<string>();
  return (error) => {
    const message = error instanceof Error ? error.message : String(error);
    if (seen.has(message) || seen.size > 100) return;
    seen.add(message);
    logger.warn({ err: error }, "telemetry: a metric could not be recorded");
  };
}

const REDUNDANT_DEFAULT_METRICS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

interface Families {
  custom: CustomLabelSet;
  http: HttpMetrics;
  provider: ProviderMetrics;
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const { logger } = options;
  const report = failureReporter(logger);
  const registry = new Registry();
  if (options.collectDefault !== false) {
    collectDefaultMetrics({ register: registry });
    // prom-client exports these sums as gauges named *_total, which promtool rejects ("non-counter
    // metrics should not have _total suffix"); the per-type gauges nodejs_active_handles,
    // nodejs_active_requests and nodejs_active_resources carry the same numbers (sum them).
    for (const name of REDUNDANT_DEFAULT_METRICS)
      registry.removeSingleMetric(name);
  }
  let prices: PriceTable = options.prices ?? new Map();

  // Every family fed from the queue below applies it when collected, so a scrape never misses
  // a call that has already returned (`flush` is defined below; collection happens later).
  const onCollect = (): void => flush();
  const stream = createStreamMetrics(registry, onCollect);
  const mcpMetrics = createMcpMetrics(registry, onCollect);

  function build(configured: readonly string[]): Families {
    const custom = customLabelSet(configured);
    for (const r of custom.rejected)
      logger.warn(
        { label: r.name },
        `client.prometheus_labels: "${r.name}" ignored: ${r.reason}`,
      );
    return {
      custom,
      http: createHttpMetrics(registry, custom),
      provider: createProviderMetrics(
        registry,
        custom.names,
        stream,
        onCollect,
      ),
    };
  }
  let families = build(options.customLabels);

  // Provider results and tool calls are queued and applied on the next turn of the event loop
  // (or at scrape time, whichever comes first): the caller's request path only pays for a push.
  const pendingProvider: ProviderCallResult[] = [];
  // The price table in effect when each call was recorded, index-aligned with pendingProvider.
  const pendingPrices: PriceTable[] = [];
  const pendingTools: ToolCallRecord[] = [];
  let scheduled = false;

  function flush(): void {
    scheduled = false;
    const tables = pendingPrices.splice(0);
    for (const [i, r] of pendingProvider.splice(0).entries()) {
      try {
        families.provider.record(r, tables[i] ?? prices);
      } catch (error) {
        report(error);
      }
    }
    for (const t of pendingTools.splice(0)) {
      try {
        mcpMetrics.recordToolCall(t);
      } catch (error) {
        report(error);
      }
    }
  }
  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  }
  const guard =
    <A extends unknown[]>(fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (error) {
        report(error);
      }
    };

  const mcp: McpRecorder = {
    toolCall: guard((record: ToolCallRecord) => {
      pendingTools.push(record);
      schedule();
    }),
    clientState: guard((client: string, state: string) =>
      mcpMetrics.clientState(client, state),
    ),
    clientReconnect: guard((client: string) =>
      mcpMetrics.clientReconnect(client),
    ),
    clientTools: guard((client: string, count: number) =>
      mcpMetrics.clientTools(client, count),
    ),
    clientRemoved: guard((client: string) => mcpMetrics.clientRemoved(client)),
    agentIterations: guard((n: number) => mcpMetrics.agentIterations(n)),
    codeModeExecution: guard((status: "success" | "error" | "timeout") =>
      mcpMetrics.codeModeExecution(status),
    ),
  };

  const provider: ProviderRecorder = {
    record: guard((result: ProviderCallResult) => {
      pendingProvider.push(result);
      pendingPrices.push(prices);
      schedule();
    }),
  };

  function setCustomLabels(labels: readonly string[]): void {
    const next = customLabelSet(labels);
    const same =
      next.names.length === families.custom.names.length &&
      next.names.every((n, i) => n === families.custom.names[i]);
    if (same) return;
    flush();
    families.http.unregister();
    families.provider.unregister();
    families = build(labels);
    logger.info(
      { prometheus_labels: families.custom.names },
      "telemetry: custom labels changed; custom-labelled metric series restart from zero",
    );
  }

  return {
    registry,
    provider,
    mcp,
    httpMetricsPlugin: httpMetricsPlugin({ current: () => families, report }),
    metricsRoute: (routeOptions = {}) => metricsRoute(registry, routeOptions),
    setCustomLabels,
    customLabels: () => families.custom.names,
    customLabelValues: (headers) =>
      assignHeaderValues({}, families.custom, headers),
    setPrices(next) {
      prices = next;
    },
    applyConfig(config) {
      setCustomLabels(config.client.prometheus_labels);
      prices = pricesFromConfig(config);
    },
    flush,
  };
}
