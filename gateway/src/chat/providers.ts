/**
 * Providers: `model` is `<provider>/<model>`; `providers.<name>` in the config says where the
 * provider lives. Each provider gets one admission queue (queue.ts) and one keep-alive
 * keep-alive connection pool (h1client's `H1Pool`, at most `concurrency` sockets: more could
 * never be used; undici's Pool cost about twice the CPU per request on the bench machine).
 * Both follow config changes: new limits apply to the existing queue, a new `base_url`
 * replaces the pool (the old one drains and closes).
 */
import type { GatewayConfig, ProviderConfig } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import type { H1Response } from "../h1client/index.js";
import { H1Pool } from "../h1client/index.js";
import type { QueueStats, Release } from "./queue.js";
import { ProviderQueue } from "./queue.js";

export interface Target {
  readonly provider: string;
  /** The model name as the provider knows it (after the first `/`). */
  readonly model: string;
  readonly config: ProviderConfig;
}

/** Splits `<provider>/<model>` and finds the provider, or throws a 400 naming the configured ones. */
export function resolveTarget(model: string, cfg: GatewayConfig): Target {
  const slash = model.indexOf("/");
  const names = Object.keys(cfg.providers);
  const known =
    names.length > 0
      ? `configured providers: ${names.join(", ")}`
      : "no providers are configured; add one under providers.<name>";
  if (slash <= 0 || slash === model.length - 1) {
    throw new GatewayError(
      "TG_ERR_VALIDATION",
      `model "${model}" must be "<provider>/<model>", e.g. "openai/gpt-4o"; ${known}`,
    );
  }
  const provider = model.slice(0, slash);
  const config = cfg.providers[provider];
  if (!config) {
    throw new GatewayError(
      "TG_ERR_UNKNOWN_PROVIDER",
      `unknown provider "${provider}" in model "${model}"; ${known}`,
      {
        provider,
        configured: names,
      },
    );
  }
  return { provider, model: model.slice(slash + 1), config };
}

// LLM calls can think for minutes before the first byte; these only catch a dead upstream.
const UPSTREAM_TIMEOUT_MS = 10 * 60_000;

interface ProviderSlot {
  readonly queue: ProviderQueue;
  pool: H1Pool;
  origin: string;
  basePath: string;
  connections: number;
  bufferSize: number;
}

export interface SendOptions {
  readonly apiKey: string | undefined;
  readonly signal: AbortSignal;
  readonly requestId: string;
}

export class Providers {
  readonly #slots = new Map<string, ProviderSlot>();
  readonly #dropExcess: () => boolean;

  constructor(dropExcess: () => boolean) {
    this.#dropExcess = dropExcess;
  }

  /** Waits for the provider's admission queue; see ProviderQueue.acquire. */
  acquire(target: Target, signal: AbortSignal): Promise<Release> {
    return this.#slot(target).queue.acquire(signal);
  }

  queueStats(provider: string): QueueStats | undefined {
    return this.#slots.get(provider)?.queue.stats;
  }

  /** POSTs `payload` to `<base_url><apiPath>` over the provider's pool. Rejects only on network failure or abort. */
  send(
    target: Target,
    apiPath: string,
    payload: string,
    opts: SendOptions,
  ): Promise<H1Response> {
    const slot = this.#slot(target);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-request-id": opts.requestId,
    };
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    return slot.pool.request({
      method: "POST",
      path: slot.basePath + apiPath,
      headers,
      body: payload,
      signal: opts.signal,
      headersTimeoutMs: UPSTREAM_TIMEOUT_MS,
      bodyTimeoutMs: UPSTREAM_TIMEOUT_MS,
    });
  }

  async close(): Promise<void> {
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    for (const s of slots)
      s.queue.rejectWaiting(new GatewayError("TG_ERR_SHUTTING_DOWN"));
    await Promise.all(slots.map((s) => s.pool.close()));
  }

  #slot(target: Target): ProviderSlot {
    const { concurrency, buffer_size } =
      target.config.concurrency_and_buffer_size;
    const { origin, basePath } = splitBase(
      target.provider,
      target.config.base_url,
    );
    let slot = this.#slots.get(target.provider);
    if (!slot) {
      slot = {
        queue: new ProviderQueue(concurrency, buffer_size, this.#dropExcess),
        pool: newPool(origin, concurrency),
        origin,
        basePath,
        connections: concurrency,
        bufferSize: buffer_size,
      };
      this.#slots.set(target.provider, slot);
      return slot;
    }
    if (slot.connections !== concurrency || slot.bufferSize !== buffer_size) {
      slot.queue.resize(concurrency, buffer_size);
      slot.bufferSize = buffer_size;
    }
    if (slot.origin !== origin || slot.connections !== concurrency) {
      const old = slot.pool;
      slot.pool = newPool(origin, concurrency);
      slot.origin = origin;
      slot.connections = concurrency;
      // Calls already running on the old pool finish; close() waits for them.
      void old.close().catch(() => undefined);
    }
    slot.basePath = basePath;
    return slot;
  }
}

function newPool(origin: string, connections: number): H1Pool {
  return new H1Pool(origin, { maxSockets: connections });
}

const baseCache = new Map<string, { origin: string; basePath: string }>();

function splitBase(
  provider: string,
  baseUrl: string,
): { origin: string; basePath: string } {
  let hit = baseCache.get(baseUrl);
  if (!hit) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch (e) {
      throw new GatewayError(
        "TG_ERR_CONFIG_INVALID",
        `providers.${provider}.base_url "${baseUrl}" is not a URL; use e.g. https://api.openai.com/v1`,
        undefined,
        { cause: e },
      );
    }
    hit = { origin: url.origin, basePath: url.pathname.replace(/\/+$/, "") };
    baseCache.set(baseUrl, hit);
  }
  return hit;
}
