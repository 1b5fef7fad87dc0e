/**
 * Secret-bearing fields of the config, in one table. Everything that must treat secrets
 * specially (redaction for the API and logs, the startup env check, error messages that
 * quote a value) walks this table, so a new secret field is added in exactly one place.
 *
 * Redacted form: an `env.<VAR>` reference is shown as written (it names a variable, it is
 * not the value); a literal secret becomes `***`.
 */
import { envRefName } from "./env.js";
import type { ClientConfig, GatewayConfig } from "./schema.js";

export type ConfigPath = readonly (string | number)[];
type Pattern = readonly string[];

export const REDACTED = "***";

/** Paths inside one client configuration (SPEC 2.1, 2.2); `*` matches any key or index. */
const CLIENT_SECRETS: readonly Pattern[] = [
  ["connection_string"],
  ["headers", "*"],
  ["oauth_config", "client_secret"],
];

/** Paths from the root of the config file. */
const CONFIG_SECRETS: readonly Pattern[] = [
  ...CLIENT_SECRETS.map((p) => ["mcp", "client_configs", "*", ...p]),
  ["governance", "virtual_keys", "*", "value"],
  ["providers", "*", "api_key"],
  ["server", "auth", "password"],
  ["server", "session_secret"],
  ["state", "redis_url"],
  ["state", "encryption_key"],
];

function matches(
  pattern: Pattern,
  path: ConfigPath,
  length = pattern.length,
): boolean {
  if (path.length !== length) return false;
  return path.every(
    (seg, i) => pattern[i] === "*" || pattern[i] === String(seg),
  );
}

/** Which table applies: a whole config, or a single client (the management API's body). */
export type SecretScope = "config" | "client";

const table = (scope: SecretScope) =>
  scope === "config" ? CONFIG_SECRETS : CLIENT_SECRETS;

/** True when the value at `path` is a secret. */
export function isSecretPath(
  path: ConfigPath,
  scope: SecretScope = "config",
): boolean {
  return table(scope).some((p) => matches(p, path));
}

/**
 * True when `path` is where an object of secrets belongs (e.g. `headers`, `server.auth`): a
 * scalar found there is most likely a secret written one level too high, so it is hidden too.
 */
function isSecretParent(path: ConfigPath, scope: SecretScope): boolean {
  return table(scope).some(
    (p) => p.length > 1 && matches(p, path, p.length - 1),
  );
}

function redactLeaf(value: unknown): unknown {
  if (typeof value === "string" && envRefName(value) !== undefined)
    return value;
  return REDACTED;
}

/**
 * A deep copy of `value` (found at `path`) with every secret replaced. Works on parsed and
 * raw (unvalidated) input alike, so error messages can quote values safely.
 */
export function redactAt(
  value: unknown,
  path: ConfigPath = [],
  scope: SecretScope = "config",
): unknown {
  if (value === undefined || value === null) return value;
  if (isSecretPath(path, scope)) return redactLeaf(value);
  if (Array.isArray(value))
    return value.map((v, i) => redactAt(v, [...path, i], scope));
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        redactAt(v, [...path, k], scope),
      ]),
    );
  }
  return isSecretParent(path, scope) ? redactLeaf(value) : value;
}

/**
 * The API/log form of a config or of one client config: `env.X` references stay, literal
 * secrets become `***`. A client config is recognised by its `connection_type`.
 */
export function redact(config: GatewayConfig): GatewayConfig;
export function redact(client: ClientConfig): ClientConfig;
export function redact(
  value: GatewayConfig | ClientConfig,
): GatewayConfig | ClientConfig {
  const scope: SecretScope = "connection_type" in value ? "client" : "config";
  // The walk keeps the shape and only swaps strings, so the input's type still holds.
  return redactAt(value, [], scope) as GatewayConfig | ClientConfig;
}

export interface SecretField {
  readonly path: ConfigPath;
  readonly value: string;
}

/** Every secret-bearing string in the config, with its path (for the env check and log redaction). */
export function secretFields(
  value: unknown,
  scope: SecretScope = "config",
): SecretField[] {
  const out: SecretField[] = [];
  const walk = (v: unknown, path: ConfigPath): void => {
    if (typeof v === "string") {
      if (isSecretPath(path, scope)) out.push({ path, value: v });
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...path, i]));
    } else if (v !== null && typeof v === "object") {
      for (const [k, item] of Object.entries(v)) walk(item, [...path, k]);
    }
  };
  walk(value, []);
  return out;
}

/** `mcp.client_configs[2].name` */
export function formatPath(path: ConfigPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(seg))
      out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === "" ? "(root)" : out;
}
