// Public surface of the operator.
export {
  Controller,
  type ControllerOptions,
  referencedSecrets,
} from "./controller.js";
export { crdFiles, mcpClientCrd, virtualKeyCrd } from "./crds/crd.js";
export * from "./crds/resources.js";
export { openApiOf, toStructural } from "./crds/to-openapi.js";
export { backoffDelay, type BackoffOptions } from "./kube/backoff.js";
export { Informer, type InformerOptions } from "./kube/informer.js";
export { LeaderElector, type LeaderOptions } from "./kube/leader.js";
export { WorkQueue } from "./kube/work-queue.js";
export { createLogger, type Logger, silentLogger } from "./logger.js";
export { OperatorMetrics } from "./metrics.js";
export { Operator, type OperatorOptions } from "./operator.js";
export { type OperatorFlags, parseFlags } from "./options.js";
export {
  CHECKSUM_ANNOTATION,
  CONFIG_KEY,
  desiredConfigMap,
  desiredSecret,
  type Target,
} from "./render/children.js";
export {
  render,
  type Rendered,
  type RenderInput,
  type Verdict,
} from "./render/desired.js";
export * from "./render/names.js";
export { setConditions } from "./status/conditions.js";
export { RedisStatusSource } from "./status/redis-status-source.js";
export {
  mcpClientStatus,
  summarize,
  virtualKeyStatus,
} from "./status/resource-status.js";
export * from "./status/status-source.js";
