/** SPEC 11.1 HTTP metric families. They carry the custom labels, so they are rebuilt when those change. */
import type { Registry } from "prom-client";
import { Counter, Histogram } from "prom-client";

import { HTTP_LABELS, type LabelValues } from "./labels.js";

/** Byte-size buckets from 64 B to 16 MiB, 4x apart: covers JSON-RPC calls up to the body limits. */
export const SIZE_BUCKETS = [64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304, 16_777_216];
/** Request durations: sub-millisecond tools/list up to multi-minute agent runs. */
export const HTTP_DURATION_BUCKETS = [
  0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

const HTTP_METRIC_NAMES = [
  "http_requests_total",
  "http_request_duration_seconds",
  "http_request_size_bytes",
  "http_response_size_bytes",
];

export interface HttpObservation {
  readonly durationSeconds: number;
  readonly requestBytes: number;
  /** Undefined for a streamed body whose length is unknown: no size observation is made. */
  readonly responseBytes: number | undefined;
}

export interface HttpMetrics {
  readonly customNames: readonly string[];
  /** `labels` holds path, method, status and every current custom label. */
  record(labels: LabelValues, o: HttpObservation): void;
  unregister(): void;
}

export function createHttpMetrics(registry: Registry, customNames: readonly string[]): HttpMetrics {
  const labelNames = [...HTTP_LABELS, ...customNames];
  const registers = [registry];
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests served, by route pattern, method and status.",
    labelNames,
    registers,
  });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from receiving the request to finishing the response, in seconds.",
    labelNames,
    buckets: HTTP_DURATION_BUCKETS,
    registers,
  });
  const requestSize = new Histogram({
    name: "http_request_size_bytes",
    help: "Request body size in bytes (Content-Length, or the received body).",
    labelNames,
    buckets: SIZE_BUCKETS,
    registers,
  });
  const responseSize = new Histogram({
    name: "http_response_size_bytes",
    help: "Response body size in bytes; streamed responses of unknown length are not observed.",
    labelNames,
    buckets: SIZE_BUCKETS,
    registers,
  });
  return {
    customNames,
    record(labels, o) {
      requests.inc(labels);
      duration.observe(labels, o.durationSeconds);
      requestSize.observe(labels, o.requestBytes);
      if (o.responseBytes !== undefined) responseSize.observe(labels, o.responseBytes);
    },
    unregister() {
      for (const name of HTTP_METRIC_NAMES) registry.removeSingleMetric(name);
    },
  };
}
