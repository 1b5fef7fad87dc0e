/**
 * Who is calling, as governance decides it from the request headers (SPEC 5.1-5.3).
 * The mcp/ and chat/ routes take a `Caller` and pass its `allowance` into registry filters.
 */
import type { ToolAllowance } from "../registry/types.js";

export interface VirtualKeyIdentity {
  readonly id: string;
  readonly name: string;
}

export interface Caller {
  /** Absent: no key was given and governance is not enforced (the global MCP server). */
  readonly virtualKey?: VirtualKeyIdentity;
  /** Absent: every tool; present: only what the key's mcp_configs allow. */
  readonly allowance?: ToolAllowance;
}

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

export interface Governance {
  /**
   * The caller for a request's headers. Throws GatewayError TG_ERR_VIRTUAL_KEY_REQUIRED (no key,
   * enforcement on) or TG_ERR_VIRTUAL_KEY_INVALID (unknown or inactive key); never falls back to
   * the global tools when a key was given.
   */
  resolveCaller(headers: HeaderBag): Caller;
}
