/**
 * One provider call: admission (queue), a pooled bookkeeping context, the request over the
 * provider's keep-alive pool, and, when the call ends, the queue slot back and one
 * fire-and-forget telemetry record. Token usage is read after the response went out, on a
 * later tick, so parsing it never delays the caller.
 */
import { performance } from "node:perf_hooks";

import type { SecretSource } from "../config/env.js";
import { resolveSecret } from "../config/env.js";
import { GatewayError, isGatewayError } from "../errors.js";
import type { H1Response } from "../h1client/index.js";
import type {
  ProviderCallLabels,
  ProviderRecorder,
} from "../telemetry/types.js";
import type { CallContext, ContextPool } from "./context-pool.js";
import type { Providers, Target } from "./providers.js";

export interface Tokens {
  readonly input?: number | undefined;
  readonly output?: number | undefined;
}

export interface CallDeps {
  readonly providers: Providers;
  readonly pool: ContextPool;
  readonly recorder?: ProviderRecorder | undefined;
  readonly secrets?: SecretSource | undefined;
}

export interface CallInput {
  readonly target: Target;
  readonly apiPath: string;
  readonly payload: string;
  readonly requestId: string;
  readonly signal: AbortSignal;
  readonly labels: ProviderCallLabels;
  readonly custom: Readonly<Record<string, string>>;
}

export interface Outcome {
  readonly success: boolean;
  readonly reason?: string;
  /** Evaluated on a later tick, after the response was sent. */
  readonly tokens?: () => Tokens | undefined;
}

export interface OpenCall {
  readonly status: number;
  readonly contentType: string;
  /** Read once: `buffer()` via readAll, or `stream()` for pass-through. */
  readonly body: H1Response;
  readonly ctx: CallContext;
  /** Aborts when the caller goes away. */
  readonly signal: AbortSignal;
  /** Ends the call once: frees the queue slot and records telemetry. */
  end(outcome: Outcome): void;
}

/** The status of an upstream answer that is passed back as it is. */
export class UpstreamHttpError extends Error {
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly body: Buffer,
  ) {
    super(`the provider answered ${status}`);
    this.name = "UpstreamHttpError";
  }
}

function apiKeyOf(
  target: Target,
  secrets: SecretSource | undefined,
): string | undefined {
  const raw = target.config.api_key;
  if (raw === undefined) return undefined;
  try {
    return resolveSecret(raw, secrets);
  } catch (e) {
    // A missing variable is the operator's mistake, not the caller's: a 500 naming it.
    throw new GatewayError(
      "TG_ERR_INTERNAL",
      `providers.${target.provider}.api_key: ${(e as Error).message}`,
      undefined,
      { cause: e },
    );
  }
}

function record(
  deps: CallDeps,
  input: CallInput,
  started: number,
  outcome: Outcome,
  stream?: CallContext,
): void {
  const recorder = deps.recorder;
  if (!recorder) return;
  const latencySeconds = (performance.now() - started) / 1000;
  const firstTokenSeconds =
    stream && stream.firstChunkAt > 0
      ? (stream.firstChunkAt - started) / 1000
      : undefined;
  const interTokenSeconds =
    stream && stream.interChunkSeconds.length > 0
      ? stream.interChunkSeconds
      : undefined;
  const streamTokens =
    stream &&
    (stream.inputTokens !== undefined || stream.outputTokens !== undefined)
      ? { input: stream.inputTokens, output: stream.outputTokens }
      : undefined;
  setImmediate(() => {
    const tokens = outcome.tokens?.() ?? streamTokens;
    recorder.record({
      labels: input.labels,
      custom: input.custom,
      success: outcome.success,
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
      latencySeconds,
      ...(tokens?.input === undefined ? {} : { inputTokens: tokens.input }),
      ...(tokens?.output === undefined ? {} : { outputTokens: tokens.output }),
      ...(firstTokenSeconds === undefined ? {} : { firstTokenSeconds }),
      ...(interTokenSeconds === undefined ? {} : { interTokenSeconds }),
    });
  });
}

/** The connection's own failures (refused, reset, timed out) get the provider's name; the gateway's own refusals pass as they are. */
function sendFailure(target: Target, e: unknown): unknown {
  const transport =
    !isGatewayError(e) ||
    e.code === "TG_ERR_UPSTREAM" ||
    e.code === "TG_ERR_TIMEOUT";
  if (!transport) return e;
  const code =
    isGatewayError(e) && e.code === "TG_ERR_TIMEOUT"
      ? "TG_ERR_TIMEOUT"
      : "TG_ERR_UPSTREAM";
  return new GatewayError(
    code,
    `provider "${target.provider}" (${target.config.base_url}) could not be reached: ${(e as Error).message}`,
    undefined,
    { cause: e },
  );
}

/** Waits for admission and sends. Rejects with TG_ERR_QUEUE_FULL, the abort reason, or TG_ERR_UPSTREAM on a network failure. */
export async function openCall(
  deps: CallDeps,
  input: CallInput,
): Promise<OpenCall> {
  const started = performance.now();
  let release: () => void;
  try {
    release = await deps.providers.acquire(input.target, input.signal);
  } catch (e) {
    if (isGatewayError(e) && e.code === "TG_ERR_QUEUE_FULL")
      record(deps, input, started, { success: false, reason: "queue_full" });
    throw e;
  }
  const ctx = deps.pool
    .acquire()
    .reset(input.target.provider, input.target.model, input.requestId, started);
  let ended = false;
  const end = (outcome: Outcome): void => {
    if (ended) return;
    ended = true;
    release();
    record(deps, input, started, outcome, ctx);
    deps.pool.release(ctx);
  };
  let res: H1Response;
  try {
    const apiKey = apiKeyOf(input.target, deps.secrets);
    res = await deps.providers.send(
      input.target,
      input.apiPath,
      input.payload,
      { apiKey, signal: input.signal, requestId: input.requestId },
    );
  } catch (e) {
    const aborted = input.signal.aborted;
    end({ success: false, reason: aborted ? "cancelled" : "network" });
    throw aborted ? e : sendFailure(input.target, e);
  }
  const contentType = res.headers["content-type"] ?? "application/json";
  return {
    status: res.status,
    contentType,
    body: res,
    ctx,
    signal: input.signal,
    end,
  };
}

/** Reads the whole body; ends the call with the HTTP outcome. */
export async function readAll(
  call: OpenCall,
  tokens?: (buf: Buffer) => Tokens | undefined,
): Promise<Buffer> {
  let buf: Buffer;
  try {
    buf = await call.body.buffer();
  } catch (e) {
    call.end({ success: false, reason: "network" });
    throw e;
  }
  const ok = call.status >= 200 && call.status < 300;
  call.end(
    ok
      ? tokens
        ? { success: true, tokens: () => tokens(buf) }
        : { success: true }
      : { success: false, reason: `http_${call.status}` },
  );
  return buf;
}
