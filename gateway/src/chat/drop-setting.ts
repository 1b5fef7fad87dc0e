/**
 * `drop_excess_requests` as the queues read it. It follows the config (`effectiveTuning`:
 * `config.*` over `client.*`) and can be set at runtime (PATCH /config). Whichever changed
 * last wins: a set value holds until the config's own value changes (a reload that edits it).
 */
import type { GatewayConfig } from "../config/schema.js";
import { effectiveTuning } from "../config/schema.js";

export class DropSetting {
  #fromConfig: boolean;
  #value: boolean;
  #seen: GatewayConfig;
  readonly #getConfig: () => GatewayConfig;

  constructor(getConfig: () => GatewayConfig) {
    this.#getConfig = getConfig;
    this.#seen = getConfig();
    this.#fromConfig = effectiveTuning(this.#seen).dropExcessRequests;
    this.#value = this.#fromConfig;
  }

  get(): boolean {
    const cfg = this.#getConfig();
    if (cfg !== this.#seen) {
      this.#seen = cfg;
      const next = effectiveTuning(cfg).dropExcessRequests;
      if (next !== this.#fromConfig) this.#value = next;
      this.#fromConfig = next;
    }
    return this.#value;
  }

  set(value: boolean): void {
    this.get();
    this.#value = value;
  }
}
