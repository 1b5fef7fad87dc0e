/**
 * SPEC 11.2 upstream-provider metric families. All but the two stream histograms carry the
 * custom labels, so the set is rebuilt when `client.prometheus_labels` changes.
 */
import type { Registry } from "prom-client";
import { Counter, Histogram } from "prom-client";

import {
  assignCustom,
  BASE_LABELS,
  baseLabelValues,
  type LabelValues,
} from "./labels.js";
import { costOf, type PriceTable } from "./prices.js";
import type { ProviderCallResult } from "./types.js";

/** LLM calls take from tens of milliseconds (cached, small) to minutes (long generations). */
export const UPSTREAM_LATENCY_BUCKETS = [
  0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300,
];
export const FIRST_TOKEN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
export const INTER_TOKEN_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/** Families rebuilt on a custom-label change (the stream histograms are not among them). */
export const PROVIDER_METRIC_NAMES = [
  "gateway_upstream_requests_total",
  "gateway_success_requests_total",
  "gateway_error_requests_total",
  "gateway_upstream_latency_seconds",
  "gateway_input_tokens_total",
  "gateway_output_tokens_total",
  "gateway_cache_hits_total",
  "gateway_cost_total",
] as const;

export interface ProviderMetrics {
  record(result: ProviderCallResult, prices: PriceTable): void;
  unregister(): void;
}

const nonNegative = (n: number | undefined): n is number =>
  n !== undefined && Number.isFinite(n) && n >= 0;

/**
 * The two stream histograms carry base labels only, so they are created once per registry and
 * keep their values when the custom labels change.
 */
export interface StreamMetrics {
  record(base: LabelValues, r: ProviderCallResult): void;
}

export function createStreamMetrics(
  registry: Registry,
  collect: () => void,
): StreamMetrics {
  const registers = [registry];
  const firstToken = new Histogram({
    name: "gateway_stream_first_token_latency_seconds",
    help: "Streaming: time to the first token in seconds.",
    labelNames: [...BASE_LABELS],
    buckets: FIRST_TOKEN_BUCKETS,
    registers,
    collect,
  });
  const interToken = new Histogram({
    name: "gateway_stream_inter_token_latency_seconds",
    help: "Streaming: time between consecutive tokens in seconds.",
    labelNames: [...BASE_LABELS],
    buckets: INTER_TOKEN_BUCKETS,
    registers,
    collect,
  });
  return {
    record(base, r) {
      if (nonNegative(r.firstTokenSeconds))
        firstToken.observe(base, r.firstTokenSeconds);
      for (const gap of r.interTokenSeconds ?? []) {
        if (nonNegative(gap)) interToken.observe(base, gap);
      }
    },
  };
}

/** The families with custom labels; `stream` receives the base-label-only observations. */
/** `collect` runs before each family is exported; the owner applies its deferred records there. */
export function createProviderMetrics(
  registry: Registry,
  customNames: readonly string[],
  stream: StreamMetrics,
  collect: () => void,
): ProviderMetrics {
  const registers = [registry];
  const withCustom = [...BASE_LABELS, ...customNames];
  const counter = (
    name: string,
    help: string,
    extra: readonly string[] = [],
  ): Counter =>
    new Counter({
      name,
      help,
      labelNames: [...withCustom, ...extra],
      registers,
      collect,
    });

  const upstream = counter(
    "gateway_upstream_requests_total",
    "Requests sent to upstream LLM providers.",
  );
  const success = counter(
    "gateway_success_requests_total",
    "Upstream provider requests that succeeded.",
  );
  const errors = counter(
    "gateway_error_requests_total",
    "Upstream provider requests that failed, by reason.",
    ["reason"],
  );
  const latency = new Histogram({
    name: "gateway_upstream_latency_seconds",
    help: "Upstream provider request latency in seconds.",
    labelNames: [...withCustom, "is_success"],
    buckets: UPSTREAM_LATENCY_BUCKETS,
    registers,
    collect,
  });
  const inputTokens = counter(
    "gateway_input_tokens_total",
    "Input (prompt) tokens reported by the provider's usage.",
  );
  const outputTokens = counter(
    "gateway_output_tokens_total",
    "Output (completion) tokens reported by the provider's usage.",
  );
  // Nothing in the gateway caches provider responses yet; the family is exported (with no
  // series) so dashboards and alerts written against SPEC 11.2 find it.
  counter(
    "gateway_cache_hits_total",
    "Provider responses served from a cache, by cache_type (direct or semantic).",
    ["cache_type"],
  );
  const cost = counter(
    "gateway_cost_total",
    "Cost in USD of upstream provider requests, from providers.<name>.prices.",
  );
  function recordTokens(
    labels: LabelValues,
    r: ProviderCallResult,
    prices: PriceTable,
  ): void {
    const input = nonNegative(r.inputTokens) ? r.inputTokens : 0;
    const output = nonNegative(r.outputTokens) ? r.outputTokens : 0;
    if (nonNegative(r.inputTokens)) inputTokens.inc(labels, input);
    if (nonNegative(r.outputTokens)) outputTokens.inc(labels, output);
    if (input + output === 0) return;
    const usd = costOf(
      prices,
      r.labels.provider,
      r.labels.model,
      input,
      output,
    );
    if (usd !== undefined) cost.inc(labels, usd);
  }

  return {
    record(r, prices) {
      const base = baseLabelValues(r.labels);
      const labels = assignCustom({ ...base }, customNames, r.custom);
      upstream.inc(labels);
      if (r.success) success.inc(labels);
      else errors.inc({ ...labels, reason: r.reason ?? "unknown" });
      if (nonNegative(r.latencySeconds))
        latency.observe(
          { ...labels, is_success: r.success ? "true" : "false" },
          r.latencySeconds,
        );
      recordTokens(labels, r, prices);
      stream.record(base, r);
    },
    unregister() {
      for (const name of PROVIDER_METRIC_NAMES)
        registry.removeSingleMetric(name);
    },
  };
}
