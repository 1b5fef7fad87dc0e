/**
 * SPEC 11.1 HTTP metric families, pre-aggregated. They are recorded on every request, so they
 * do not go through prom-client's Counter/Histogram (which validates and hashes the label object
 * once per family per call, ~3-5 us per request for the four families): a request costs one
 * string key, one Map lookup and three bucket searches, and the label object is built only for
 * a new series. The families are exported through the registry as metric objects of prom-client's
 * own shape (`get()` returning name, help, type and values), so the text format is prom-client's.
 *
 * They carry the custom labels, so they are rebuilt when those change (see telemetry.ts).
 */
import type { IncomingHttpHeaders } from "node:http";

import type { Metric, Registry } from "prom-client";

import {
  type CustomLabelSet,
  headerValue,
  type LabelValues,
} from "./labels.js";

/** Byte-size buckets from 64 B to 16 MiB, 4x apart: covers JSON-RPC calls up to the body limits. */
export const SIZE_BUCKETS = [
  64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576, 4_194_304,
  16_777_216,
];
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

export interface HttpMetrics {
  /** `responseBytes` undefined: a streamed body of unknown length, no size observation. */
  record(
    path: string,
    method: string,
    status: number,
    headers: IncomingHttpHeaders,
    durationSeconds: number,
    requestBytes: number,
    responseBytes: number | undefined,
  ): void;
  unregister(): void;
}

class Hist {
  count = 0;
  sum = 0;
  /** Non-cumulative counts; the last slot holds observations above the highest bound. */
  readonly slots: Float64Array;
  constructor(readonly bounds: readonly number[]) {
    this.slots = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    if (!(v >= 0)) return; // NaN or negative: nothing meaningful to record
    const b = this.bounds;
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    this.slots[i] = (this.slots[i] as number) + 1;
    this.count++;
    this.sum += v;
  }
}

interface Series {
  readonly labels: LabelValues;
  requests: number;
  readonly duration: Hist;
  readonly requestSize: Hist;
  readonly responseSize: Hist;
}

interface ExportedValue {
  value: number;
  /** `le` is a number, as in prom-client's own histograms (JSON consumers see the same type). */
  labels: Readonly<Record<string, string | number>>;
  sharedLabels?: LabelValues;
  metricName?: string;
}

type HistKey = "duration" | "requestSize" | "responseSize";

/** A metric object in the shape prom-client's Registry exports (see Registry#getMetricsAsString). */
function family(
  name: string,
  help: string,
  type: "counter" | "histogram",
  values: () => ExportedValue[],
  reset: () => void,
): Metric {
  const data = (v: ExportedValue[]): object => ({
    name,
    help,
    type,
    aggregator: "sum",
    values: v,
  });
  const metric = {
    name,
    help,
    type,
    aggregator: "sum",
    // Text exposition: series labels as sharedLabels, formatted once per series and cached.
    getForPromString: () => Promise.resolve(data(values())),
    // JSON (getMetricsAsJSON, cluster aggregation): labels merged, as prom-client's get() does.
    get: () =>
      Promise.resolve(
        data(
          values().map(({ sharedLabels, ...v }) => ({
            ...v,
            labels: { ...v.labels, ...sharedLabels },
          })),
        ),
      ),
    reset,
  };
  // prom-client's types name only its own classes, but its Registry needs just this shape.
  return metric as unknown as Metric;
}

function histogramValues(
  name: string,
  series: Iterable<Series>,
  key: HistKey,
): ExportedValue[] {
  const out: ExportedValue[] = [];
  for (const s of series) {
    const h = s[key];
    if (h.count === 0) continue;
    let acc = 0;
    h.bounds.forEach((le, i) => {
      acc += h.slots[i] as number;
      out.push({
        labels: { le },
        sharedLabels: s.labels,
        value: acc,
        metricName: `${name}_bucket`,
      });
    });
    out.push({
      labels: { le: "+Inf" },
      sharedLabels: s.labels,
      value: h.count,
      metricName: `${name}_bucket`,
    });
    out.push({
      labels: {},
      sharedLabels: s.labels,
      value: h.sum,
      metricName: `${name}_sum`,
    });
    out.push({
      labels: {},
      sharedLabels: s.labels,
      value: h.count,
      metricName: `${name}_count`,
    });
  }
  return out;
}

export function createHttpMetrics(
  registry: Registry,
  custom: CustomLabelSet,
): HttpMetrics {
  const table = new Map<string, Series>();
  const names = custom.names;
  const headerNames = custom.headers;

  function newSeries(
    path: string,
    method: string,
    status: number,
    values: readonly string[],
  ): Series {
    const labels: LabelValues = { path, method, status: String(status) };
    names.forEach((n, i) => (labels[n] = values[i] as string));
    return {
      labels,
      requests: 0,
      duration: new Hist(HTTP_DURATION_BUCKETS),
      requestSize: new Hist(SIZE_BUCKETS),
      responseSize: new Hist(SIZE_BUCKETS),
    };
  }

  // The four families share one table, so Registry#resetMetrics resetting any resets all.
  const clear = (): void => table.clear();
  const families = [
    family(
      "http_requests_total",
      "HTTP requests served, by route pattern, method and status.",
      "counter",
      () =>
        [...table.values()].map((s) => ({
          labels: s.labels,
          value: s.requests,
        })),
      clear,
    ),
    family(
      "http_request_duration_seconds",
      "Time from receiving the request to finishing the response, in seconds.",
      "histogram",
      () =>
        histogramValues(
          "http_request_duration_seconds",
          table.values(),
          "duration",
        ),
      clear,
    ),
    family(
      "http_request_size_bytes",
      "Request body size in bytes (Content-Length, or the received body).",
      "histogram",
      () =>
        histogramValues(
          "http_request_size_bytes",
          table.values(),
          "requestSize",
        ),
      clear,
    ),
    family(
      "http_response_size_bytes",
      "Response body size in bytes; streamed responses of unknown length are not observed.",
      "histogram",
      () =>
        histogramValues(
          "http_response_size_bytes",
          table.values(),
          "responseSize",
        ),
      clear,
    ),
  ];
  for (const f of families) registry.registerMetric(f);

  return {
    record(
      path,
      method,
      status,
      headers,
      durationSeconds,
      requestBytes,
      responseBytes,
    ) {
      let key = `${path}\n${method}\n${status}`;
      // Header values cannot contain a newline, so the joined key is unambiguous.
      for (let i = 0; i < headerNames.length; i++)
        key += `\n${headerValue(headers[headerNames[i] as string])}`;
      let s = table.get(key);
      if (s === undefined) {
        s = newSeries(
          path,
          method,
          status,
          headerNames.map((h) => headerValue(headers[h])),
        );
        table.set(key, s);
      }
      s.requests++;
      s.duration.observe(durationSeconds);
      s.requestSize.observe(requestBytes);
      if (responseBytes !== undefined) s.responseSize.observe(responseBytes);
    },
    unregister() {
      for (const name of HTTP_METRIC_NAMES) registry.removeSingleMetric(name);
    },
  };
}
