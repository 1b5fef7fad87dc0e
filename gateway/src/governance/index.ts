/**
 * Virtual keys (SPEC 2.4, 5.1-5.3). A key arrives in `x-bf-virtual-key`, `x-api-key` or
 * `Authorization: Bearer`; it is looked up by its SHA-256 digest, so the lookup time does not
 * depend on how much of a guessed key matches a real one.
 *
 * Decisions where SPEC is silent:
 * - When several of the three headers are present, `x-bf-virtual-key` wins, then `x-api-key`,
 *   then `Authorization`.
 * - With no virtual keys configured and enforcement off, the headers are not inspected at all:
 *   OpenAI clients always send `Authorization: Bearer <something>`, and without keys there is
 *   nothing to match it against. Once keys exist, any key given must be valid (401 otherwise):
 *   a wrong key never falls back to the global tool set.
 */
import { createHash } from "node:crypto";

import { resolveSecret, type SecretSource } from "../config/env.js";
import type { GatewayConfig, VirtualKey } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import type { ToolAllowance } from "../registry/types.js";
import type { Caller, Governance, HeaderBag } from "./types.js";

export type {
  Caller,
  Governance,
  HeaderBag,
  VirtualKeyIdentity,
} from "./types.js";

interface KeyRecord {
  readonly caller: Caller;
  readonly active: boolean;
}

const NO_KEY: Caller = Object.freeze({});

function digest(value: string): string {
  return createHash("sha256").update(value).digest("base64");
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The virtual key a request carries, if any (SPEC 5.1). */
export function extractVirtualKey(headers: HeaderBag): string | undefined {
  const direct =
    first(headers["x-bf-virtual-key"]) ?? first(headers["x-api-key"]);
  if (direct !== undefined && direct.trim() !== "") return direct.trim();
  const auth = first(headers.authorization);
  if (auth === undefined) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
  return m?.[1]?.trim() || undefined;
}

export function allowanceOf(
  vk: Pick<VirtualKey, "mcp_configs">,
): ToolAllowance {
  const allowance = new Map<string, "*" | ReadonlySet<string>>();
  for (const mc of vk.mcp_configs) {
    const prev = allowance.get(mc.mcp_client_name);
    if (prev === "*" || mc.tools_to_execute.includes("*")) {
      allowance.set(mc.mcp_client_name, "*");
      continue;
    }
    allowance.set(
      mc.mcp_client_name,
      new Set([...(prev ?? []), ...mc.tools_to_execute]),
    );
  }
  return allowance;
}

export class VirtualKeyGovernance implements Governance {
  private keys = new Map<string, KeyRecord>();
  private enforce = false;

  constructor(
    config: GatewayConfig,
    private readonly secrets?: SecretSource,
  ) {
    this.update(config);
  }

  /** Replaces the key set (config reload). Throws, keeping the old set, if a key's env. reference is unset. */
  update(config: GatewayConfig): void {
    const keys = new Map<string, KeyRecord>();
    for (const vk of config.governance.virtual_keys) {
      const value = resolveSecret(vk.value, this.secrets);
      const id = vk.id ?? vk.name;
      keys.set(digest(value), {
        active: vk.is_active,
        caller: Object.freeze({
          virtualKey: Object.freeze({ id, name: vk.name }),
          allowance: allowanceOf(vk),
        }),
      });
    }
    this.keys = keys;
    this.enforce = config.client.enforce_governance_header;
  }

  get enforced(): boolean {
    return this.enforce;
  }

  resolveCaller(headers: HeaderBag): Caller {
    if (this.keys.size === 0 && !this.enforce) return NO_KEY;
    const key = extractVirtualKey(headers);
    if (key === undefined) {
      if (this.enforce) {
        throw new GatewayError(
          "TG_ERR_VIRTUAL_KEY_REQUIRED",
          "a virtual key is required: send it as Authorization: Bearer <key>, X-Api-Key or x-bf-virtual-key",
        );
      }
      return NO_KEY;
    }
    const record = this.keys.get(digest(key));
    if (!record)
      throw new GatewayError(
        "TG_ERR_VIRTUAL_KEY_INVALID",
        "the virtual key is not known",
      );
    if (!record.active)
      throw new GatewayError(
        "TG_ERR_VIRTUAL_KEY_INVALID",
        "the virtual key is inactive",
      );
    return record.caller;
  }
}

export function createGovernance(
  config: GatewayConfig,
  secrets?: SecretSource,
): VirtualKeyGovernance {
  return new VirtualKeyGovernance(config, secrets);
}
