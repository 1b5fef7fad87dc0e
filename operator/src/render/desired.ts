/**
 * The desired state, as a pure function: the watched MCPClients, VirtualKeys and Secrets in,
 * the gateway config (for the ConfigMap), the secret values (for the Secret) and one verdict
 * per resource out. A resource that cannot be rendered (bad name, bad spec, missing Secret)
 * is left out with a verdict saying why; it never stops the others from being served.
 *
 * Conflicts (two resources mapping to the same client or key name, possible when several
 * namespaces are watched) go to the oldest resource, then by namespace: a deterministic
 * choice that does not flip when an unrelated resource changes.
 */
import { createHash } from "node:crypto";

import {
  ClientConfig,
  type ClientConfigInput,
  GatewayConfig,
  type GatewayConfigInput,
  VirtualKey,
} from "@toolgate/gateway";
import type { z } from "zod";

import {
  type CustomObject,
  MCPClientSpec,
  type SecretKeyRef,
  VirtualKeySpec,
} from "../crds/resources.js";
import {
  clientNameOf,
  envRef,
  headerSecretKey,
  normaliseClientRef,
  oauthSecretKey,
  virtualKeySecretKey,
} from "./names.js";

/** Decoded Secret data by `namespace/name`. */
export type SecretLookup = (
  namespace: string,
  name: string,
) => Readonly<Record<string, string>> | undefined;

export type Verdict =
  | { ok: true; name: string; message?: string }
  | { ok: false; reason: VerdictReason; message: string; name?: string };

export type VerdictReason =
  | "InvalidName"
  | "InvalidSpec"
  | "NameConflict"
  | "SecretNotFound"
  | "SecretKeyNotFound";

export interface RenderInput {
  clients: readonly CustomObject[];
  virtualKeys: readonly CustomObject[];
  secrets: SecretLookup;
  /** The release's own settings (server, state, providers, ...); `mcp.client_configs` and `governance.virtual_keys` are replaced. */
  base?: GatewayConfigInput;
}

export interface Rendered {
  config: GatewayConfigInput;
  configJson: string;
  secretData: Record<string, string>;
  checksum: string;
  /** Verdict by `namespace/name`. */
  clients: Map<string, Verdict>;
  virtualKeys: Map<string, Verdict>;
}

export const DEFAULT_SECRET_KEY = "key";

export function objectKey(o: CustomObject): string {
  return `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

function byAge(a: CustomObject, b: CustomObject): number {
  const ta = String(a.metadata.creationTimestamp ?? "");
  const tb = String(b.metadata.creationTimestamp ?? "");
  if (ta !== tb) return ta < tb ? -1 : 1;
  return objectKey(a) < objectKey(b) ? -1 : 1;
}

class SecretRefError extends Error {
  constructor(
    readonly reason: "SecretNotFound" | "SecretKeyNotFound",
    message: string,
  ) {
    super(message);
  }
}

function readRef(
  secrets: SecretLookup,
  namespace: string,
  ref: SecretKeyRef,
  what: string,
): string {
  const data = secrets(namespace, ref.name);
  if (!data)
    throw new SecretRefError(
      "SecretNotFound",
      `${what}: Secret "${ref.name}" not found in namespace "${namespace}"`,
    );
  const value = data[ref.key];
  if (value === undefined)
    throw new SecretRefError(
      "SecretKeyNotFound",
      `${what}: Secret "${ref.name}" has no key "${ref.key}"`,
    );
  return value;
}

export function formatIssues(
  prefix: string,
  error: z.ZodError,
  camel = false,
): string {
  const seg = (p: PropertyKey) =>
    camel
      ? String(p).replaceAll(/_([a-z])/g, (_m, c: string) => c.toUpperCase())
      : String(p);
  return error.issues
    .map((i) => `${[prefix, ...i.path.map(seg)].join(".")}: ${i.message}`)
    .join("; ");
}

type Built<T> =
  | { ok: true; value: T; secrets: Record<string, string> }
  | { ok: false; reason: VerdictReason; message: string };

/** Drops undefined values, so absent spec fields stay absent in the rendered config. */
function compact<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => v !== undefined),
  ) as T;
}

type Spec = MCPClientSpec;
type Out = Record<string, string>;

function headersOf(
  headers: NonNullable<Spec["headers"]>,
  name: string,
  ns: string,
  secrets: SecretLookup,
  out: Out,
): Record<string, string> {
  const rendered: Record<string, string> = {};
  Object.keys(headers)
    .sort()
    .forEach((h, i) => {
      const hv = headers[h];
      if (hv?.secretKeyRef) {
        const key = headerSecretKey(name, i);
        out[key] = readRef(secrets, ns, hv.secretKeyRef, `spec.headers.${h}`);
        rendered[h] = envRef(key);
      } else if (hv?.value !== undefined) rendered[h] = hv.value;
    });
  return rendered;
}

function oauthOf(
  o: NonNullable<Spec["oauthConfig"]>,
  name: string,
  ns: string,
  secrets: SecretLookup,
  out: Out,
): NonNullable<ClientConfigInput["oauth_config"]> {
  let clientSecret: string | undefined;
  if (o.clientSecretRef) {
    const key = oauthSecretKey(name);
    out[key] = readRef(
      secrets,
      ns,
      o.clientSecretRef,
      "spec.oauthConfig.clientSecretRef",
    );
    clientSecret = envRef(key);
  }
  return compact<NonNullable<ClientConfigInput["oauth_config"]>>({
    client_id: o.clientId,
    client_secret: clientSecret,
    authorize_url: o.authorizeUrl,
    token_url: o.tokenUrl,
    registration_url: o.registrationUrl,
    server_url: o.serverUrl,
    scopes: o.scopes,
  });
}

function stdioOf(
  s: NonNullable<Spec["stdioConfig"]>,
): NonNullable<ClientConfigInput["stdio_config"]> {
  return { command: s.command, args: s.args ?? [], envs: s.envs ?? [] };
}

function clientConfigOf(
  spec: Spec,
  name: string,
  ns: string,
  secrets: SecretLookup,
  out: Out,
): ClientConfigInput {
  return compact<ClientConfigInput>({
    name,
    connection_type: spec.connectionType,
    connection_string: spec.connectionString,
    stdio_config: spec.stdioConfig && stdioOf(spec.stdioConfig),
    auth_type: spec.authType,
    headers: spec.headers && headersOf(spec.headers, name, ns, secrets, out),
    oauth_config:
      spec.oauthConfig && oauthOf(spec.oauthConfig, name, ns, secrets, out),
    tools_to_execute: spec.toolsToExecute,
    tools_to_auto_execute: spec.toolsToAutoExecute,
    is_code_mode_client: spec.isCodeModeClient,
    is_ping_available: spec.isPingAvailable,
  });
}

function buildClient(
  obj: CustomObject,
  name: string,
  secrets: SecretLookup,
): Built<ClientConfigInput> {
  const parsed = MCPClientSpec.safeParse(obj.spec);
  if (!parsed.success)
    return {
      ok: false,
      reason: "InvalidSpec",
      message: formatIssues("spec", parsed.error),
    };
  const out: Out = {};
  try {
    const cfg = clientConfigOf(
      parsed.data,
      name,
      obj.metadata.namespace ?? "",
      secrets,
      out,
    );
    // The gateway's own schema has the last word, so the CRD cannot admit what the gateway rejects.
    const check = ClientConfig.safeParse(cfg);
    if (!check.success)
      return {
        ok: false,
        reason: "InvalidSpec",
        message: formatIssues("spec", check.error, true),
      };
    return { ok: true, value: cfg, secrets: out };
  } catch (error) {
    if (error instanceof SecretRefError)
      return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}

type VirtualKeyInput = z.input<typeof VirtualKey>;

function buildVirtualKey(
  obj: CustomObject,
  secrets: SecretLookup,
): Built<VirtualKeyInput> {
  const parsed = VirtualKeySpec.safeParse(obj.spec);
  if (!parsed.success)
    return {
      ok: false,
      reason: "InvalidSpec",
      message: formatIssues("spec", parsed.error),
    };
  const spec = parsed.data;
  const name = obj.metadata.name;
  const ref = {
    name: spec.keySecretRef.name,
    key: spec.keySecretRef.key ?? DEFAULT_SECRET_KEY,
  };
  try {
    const key = virtualKeySecretKey(name);
    const value = readRef(
      secrets,
      obj.metadata.namespace ?? "",
      ref,
      "spec.keySecretRef",
    );
    const vk: VirtualKeyInput = {
      name,
      value: envRef(key),
      is_active: spec.active ?? true,
      mcp_configs: (spec.mcpConfigs ?? []).map((m) => ({
        mcp_client_name: normaliseClientRef(m.mcpClientName),
        tools_to_execute: m.toolsToExecute ?? [],
      })),
    };
    const check = VirtualKey.safeParse(vk);
    if (!check.success)
      return {
        ok: false,
        reason: "InvalidSpec",
        message: formatIssues("spec", check.error, true),
      };
    if (value.length === 0)
      return {
        ok: false,
        reason: "SecretKeyNotFound",
        message: `spec.keySecretRef: key "${ref.key}" of Secret "${ref.name}" is empty`,
      };
    return { ok: true, value: vk, secrets: { [key]: value } };
  } catch (error) {
    if (error instanceof SecretRefError)
      return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}

function renderAll<T>(
  objects: readonly CustomObject[],
  nameOf: (
    o: CustomObject,
  ) => { ok: true; name: string } | { ok: false; message: string },
  build: (o: CustomObject, name: string) => Built<T>,
  kind: string,
): {
  values: { name: string; value: T }[];
  secrets: Record<string, string>;
  verdicts: Map<string, Verdict>;
} {
  const verdicts = new Map<string, Verdict>();
  const taken = new Map<string, string>();
  const values: { name: string; value: T }[] = [];
  const secrets: Record<string, string> = {};
  for (const obj of [...objects].sort(byAge)) {
    const key = objectKey(obj);
    const n = nameOf(obj);
    if (!n.ok) {
      verdicts.set(key, {
        ok: false,
        reason: "InvalidName",
        message: n.message,
      });
      continue;
    }
    const owner = taken.get(n.name);
    if (owner !== undefined) {
      verdicts.set(key, {
        ok: false,
        reason: "NameConflict",
        name: n.name,
        message: `${kind} name "${n.name}" is already served for ${owner} (the older resource wins); rename one of them`,
      });
      continue;
    }
    const built = build(obj, n.name);
    if (!built.ok) {
      verdicts.set(key, {
        ok: false,
        reason: built.reason,
        message: built.message,
        name: n.name,
      });
      continue;
    }
    taken.set(n.name, key);
    values.push({ name: n.name, value: built.value });
    Object.assign(secrets, built.secrets);
    verdicts.set(key, { ok: true, name: n.name });
  }
  values.sort((a, b) => (a.name < b.name ? -1 : 1));
  return { values, secrets, verdicts };
}

/** Renders the whole desired state. Throws only when the base config itself is invalid. */
export function render(input: RenderInput): Rendered {
  const clients = renderAll(
    input.clients,
    (o) => clientNameOf(o.metadata.name),
    (o, name) => buildClient(o, name, input.secrets),
    "client",
  );
  const vks = renderAll(
    input.virtualKeys,
    (o) => ({ ok: true, name: o.metadata.name }),
    (o) => buildVirtualKey(o, input.secrets),
    "virtual key",
  );
  const base = input.base ?? {};
  const config: GatewayConfigInput = {
    ...base,
    mcp: { ...base.mcp, client_configs: clients.values.map((v) => v.value) },
    governance: {
      ...base.governance,
      virtual_keys: vks.values.map((v) => v.value),
    },
  };
  const check = GatewayConfig.safeParse(config);
  if (!check.success)
    throw new Error(
      `rendered gateway config is invalid: ${formatIssues("config", check.error)}`,
    );
  const configJson = `${JSON.stringify(config, null, 2)}\n`;
  const secretData = Object.fromEntries(
    Object.entries({ ...clients.secrets, ...vks.secrets }).sort(([a], [b]) =>
      a < b ? -1 : 1,
    ),
  );
  const checksum = createHash("sha256")
    .update(configJson)
    .update("\0")
    .update(JSON.stringify(secretData))
    .digest("hex");
  return {
    config,
    configJson,
    secretData,
    checksum,
    clients: clients.verdicts,
    virtualKeys: vks.verdicts,
  };
}
