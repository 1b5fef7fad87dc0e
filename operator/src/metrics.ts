/** The operator's own Prometheus metrics, on a registry per instance (two instances can share a process in tests). */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: "toolgate_operator_reconcile_total",
    help: "Reconciles by kind and result",
    labelNames: ["kind", "result"],
    registers: [this.registry],
  });
  readonly reconcileSeconds = new Histogram({
    name: "toolgate_operator_reconcile_duration_seconds",
    help: "Time spent in one reconcile",
    labelNames: ["kind"],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  readonly writes = new Counter({
    name: "toolgate_operator_api_writes_total",
    help: "Writes to the Kubernetes API by resource and verb",
    labelNames: ["resource", "verb"],
    registers: [this.registry],
  });
  readonly watchRestarts = new Counter({
    name: "toolgate_operator_watch_restarts_total",
    help: "Watch restarts by resource and reason",
    labelNames: ["resource", "reason"],
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: "toolgate_operator_leader",
    help: "1 while this instance holds the leader Lease",
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: "toolgate_operator_queue_depth",
    help: "Keys waiting in the work queue",
    registers: [this.registry],
  });
  readonly resources = new Gauge({
    name: "toolgate_operator_resources",
    help: "Watched resources by kind and readiness",
    labelNames: ["kind", "ready"],
    registers: [this.registry],
  });
}
