/**
 * The configuration file, as one zod schema: the single source of truth for the gateway's
 * settings, the JSON Schema in `gateway/config.schema.json` and the operator's rendering.
 *
 * Keys follow SPEC.md as written (snake_case). Every object is strict, so a typo is an
 * error rather than a silent default. Durations stay strings in the parsed config (so a
 * config round-trips through the API and the operator unchanged); `durationMs` turns them
 * into numbers where they are used. Secret-bearing strings may be `env.<VAR>` references,
 * resolved when used (see `env.ts`), never at parse time.
 */
import { z } from "zod";

/** SPEC 2.1: ASCII letters, digits and underscore; not starting with a digit. */
export const CLIENT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration string such as `10s`, `500ms`, `2m`. Throws on a malformed value. */
export function durationMs(value: string): number {
  const m = DURATION_PATTERN.exec(value);
  if (!m) throw new RangeError(`"${value}" is not a duration; use a number with ms, s, m or h (e.g. "10s")`);
  return Number(m[1]) * (UNIT_MS[m[2] ?? "s"] ?? 1000);
}

export const Duration = z
  .string()
  .regex(DURATION_PATTERN, { message: 'must be a duration: a number with ms, s, m or h, e.g. "10s" or "500ms"' })
  .meta({ description: 'Duration: a number followed by ms, s, m or h, e.g. "10s"' });

export const ClientName = z.string().regex(CLIENT_NAME_PATTERN, {
  message: "must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)",
});

/** `["*"]` = all, empty or absent = none, otherwise exactly these names. */
export const ToolList = z.array(z.string().min(1));

export const StdioConfig = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Names of environment variables passed to the child (their values come from the gateway's environment). */
  envs: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "must be an environment variable name" })).default([]),
});

export const OAuthConfig = z.strictObject({
  client_id: z.string().min(1).optional(),
  client_secret: z.string().min(1).optional(),
  authorize_url: z.url().optional(),
  token_url: z.url().optional(),
  registration_url: z.url().optional(),
  server_url: z.url().optional(),
  scopes: z.array(z.string()).default([]),
});

export const ConnectionType = z.enum(["stdio", "http", "sse"]);
export const AuthType = z.enum(["headers", "oauth"]);

const clientFields = {
  id: z.string().min(1).max(200).optional(),
  name: ClientName,
  connection_type: ConnectionType,
  /** URL of the server, or `env.<VAR>`. Required for http and sse. */
  connection_string: z.string().min(1).optional(),
  stdio_config: StdioConfig.optional(),
  auth_type: AuthType.optional(),
  headers: z.record(z.string(), z.string()).optional(),
  oauth_config: OAuthConfig.optional(),
  tools_to_execute: ToolList.default([]),
  tools_to_auto_execute: ToolList.default([]),
  is_code_mode_client: z.boolean().default(false),
  is_ping_available: z.boolean().default(true),
};

type ClientShape = z.infer<z.ZodObject<typeof clientFields>>;

/** Cross-field rules of SPEC 2.1, shared by the file schema and the management API. */
export function checkClientRules(c: ClientShape, ctx: z.RefinementCtx): void {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  if (c.connection_type === "stdio") {
    if (!c.stdio_config) issue("stdio_config", "is required when connection_type is stdio");
    if (c.auth_type) issue("auth_type", "stdio clients have no authentication; remove auth_type");
    if (c.connection_string) issue("connection_string", "is not used by stdio clients; use stdio_config");
  } else {
    if (!c.connection_string) issue("connection_string", `is required when connection_type is ${c.connection_type}`);
    if (c.stdio_config) issue("stdio_config", `is only for stdio clients, not ${c.connection_type}`);
  }
  if (c.auth_type === "headers" && !c.headers) issue("headers", "is required when auth_type is headers");
  if (c.auth_type !== "headers" && c.headers) issue("headers", 'needs auth_type "headers"');
  if (c.auth_type === "oauth" && !c.oauth_config) issue("oauth_config", "is required when auth_type is oauth");
  if (c.auth_type !== "oauth" && c.oauth_config) issue("oauth_config", 'needs auth_type "oauth"');
  checkAutoSubset(c.tools_to_execute, c.tools_to_auto_execute, ctx);
}

export function checkAutoSubset(exec: string[], auto: string[], ctx: z.RefinementCtx): void {
  if (exec.includes("*")) return;
  for (const [i, t] of auto.entries()) {
    if (t === "*") {
      ctx.addIssue({
        code: "custom",
        path: ["tools_to_auto_execute", i],
        message: '"*" needs "*" in tools_to_execute too (auto-executed tools must be a subset of tools_to_execute)',
      });
    } else if (!exec.includes(t)) {
      ctx.addIssue({
        code: "custom",
        path: ["tools_to_auto_execute", i],
        message: `"${t}" is not in tools_to_execute (auto-executed tools must be a subset of tools_to_execute)`,
      });
    }
  }
}

export const ClientConfigObject = z.strictObject(clientFields);
export const ClientConfig = ClientConfigObject.superRefine(checkClientRules);

export const HealthMonitorConfig = z.strictObject({
  check_interval: Duration.default("10s"),
  check_timeout: Duration.default("5s"),
  max_consecutive_failures: z.int().min(1).default(5),
});

export const ToolManagerConfig = z.strictObject({
  code_mode_binding_level: z.enum(["server", "tool"]).default("server"),
  tool_execution_timeout: Duration.default("30s"),
  max_agent_depth: z.int().min(1).max(1000).default(10),
});

export const McpSection = z.strictObject({
  client_configs: z.array(ClientConfig).default([]),
  health_monitor_config: HealthMonitorConfig.prefault({}),
  tool_manager_config: ToolManagerConfig.prefault({}),
});

/**
 * `client.*` and `config.*` are both spellings of SPEC 2.5. `client.*` carries the defaults;
 * `config.*`, when present, overrides it (see `effectiveTuning`).
 */
export const ClientSection = z.strictObject({
  enforce_governance_header: z.boolean().default(false),
  prometheus_labels: z.array(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, { message: "must be a Prometheus label name" })).default([]),
  drop_excess_requests: z.boolean().default(false),
  initial_pool_size: z.int().min(1).default(5000),
  /** Origins allowed to call /mcp from a browser; requests with another Origin get 403. */
  allowed_origins: z.array(z.string()).default([]),
});

export const LegacyConfigSection = z.strictObject({
  drop_excess_requests: z.boolean().optional(),
  initial_pool_size: z.int().min(1).optional(),
});

export const ModelPrice = z.strictObject({
  /** USD per one million input tokens. */
  input_per_million: z.number().min(0),
  /** USD per one million output tokens. */
  output_per_million: z.number().min(0),
});

export const ProviderConfig = z.strictObject({
  /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1 */
  base_url: z.string().min(1),
  api_key: z.string().optional(),
  concurrency_and_buffer_size: z
    .strictObject({
      concurrency: z.int().min(1).default(1000),
      buffer_size: z.int().min(0).default(5000),
    })
    .prefault({}),
  /** Per-model prices for gateway_cost_total; a model without a price adds no cost. */
  prices: z.record(z.string(), ModelPrice).default({}),
});

export const VirtualKeyMcpConfig = z.strictObject({
  mcp_client_name: ClientName,
  tools_to_execute: ToolList.default([]),
});

export const VirtualKey = z.strictObject({
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  /** The key itself (secret), or `env.<VAR>`. */
  value: z.string().min(1),
  is_active: z.boolean().default(true),
  mcp_configs: z.array(VirtualKeyMcpConfig).default([]),
});

export const GovernanceSection = z.strictObject({
  virtual_keys: z.array(VirtualKey).default([]),
});

export const ServerSection = z.strictObject({
  host: z.string().default("127.0.0.1"),
  port: z.int().min(0).max(65535).default(8080),
  /** HTTP Basic auth for /api/*, /config and /metrics. Absent: those answer loopback callers only. */
  auth: z.strictObject({ username: z.string().min(1), password: z.string().min(1) }).optional(),
  /** Creating stdio clients through the API runs a command on the host; off unless set. */
  allow_stdio_from_api: z.boolean().default(false),
  shutdown_grace_period: Duration.default("10s"),
  body_limit_api: z.int().min(1024).default(1024 * 1024),
  body_limit_mcp: z.int().min(1024).default(4 * 1024 * 1024),
  log_level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Secret used to sign /mcp session ids; `env.` allowed. Absent: a random key per process. */
  session_secret: z.string().min(16).optional(),
});

export const StateSection = z.strictObject({
  /** Absent: in-memory store. `redis://`, `rediss://` (TLS); `env.` allowed. */
  redis_url: z.string().min(1).optional(),
  /** Key for encrypting OAuth tokens at rest (AES-256-GCM); `env.` allowed. */
  encryption_key: z.string().min(16).optional(),
});

export const GatewayConfigObject = z.strictObject({
  $schema: z.string().optional(),
  server: ServerSection.prefault({}),
  state: StateSection.prefault({}),
  mcp: McpSection.prefault({}),
  client: ClientSection.prefault({}),
  config: LegacyConfigSection.optional(),
  providers: z.record(z.string().regex(/^[A-Za-z0-9_.-]+$/, { message: "provider names use letters, digits, '.', '_' and '-'" }), ProviderConfig).default({}),
  governance: GovernanceSection.prefault({}),
});

export const GatewayConfig = GatewayConfigObject.superRefine((cfg, ctx) => {
  const seen = new Map<string, number>();
  const ids = new Map<string, number>();
  cfg.mcp.client_configs.forEach((c, i) => {
    const prev = seen.get(c.name);
    if (prev !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["mcp", "client_configs", i, "name"],
        message: `"${c.name}" is already used by mcp.client_configs[${prev}]; client names must be unique`,
      });
    } else seen.set(c.name, i);
    const id = c.id ?? c.name;
    const prevId = ids.get(id);
    if (prevId !== undefined && prevId !== i) {
      ctx.addIssue({
        code: "custom",
        path: ["mcp", "client_configs", i, "id"],
        message: `"${id}" is already used by mcp.client_configs[${prevId}]; client ids must be unique`,
      });
    } else ids.set(id, i);
  });
  const keyNames = new Set<string>();
  cfg.governance.virtual_keys.forEach((vk, i) => {
    if (keyNames.has(vk.name)) {
      ctx.addIssue({
        code: "custom",
        path: ["governance", "virtual_keys", i, "name"],
        message: `"${vk.name}" is already used by another virtual key; names must be unique`,
      });
    }
    keyNames.add(vk.name);
  });
});

export type GatewayConfig = z.infer<typeof GatewayConfig>;
export type GatewayConfigInput = z.input<typeof GatewayConfig>;
export type ClientConfig = z.infer<typeof ClientConfig>;
export type ClientConfigInput = z.input<typeof ClientConfig>;
export type OAuthConfig = z.infer<typeof OAuthConfig>;
export type StdioConfig = z.infer<typeof StdioConfig>;
export type ProviderConfig = z.infer<typeof ProviderConfig>;
export type VirtualKey = z.infer<typeof VirtualKey>;
export type HealthMonitorConfig = z.infer<typeof HealthMonitorConfig>;
export type ToolManagerConfig = z.infer<typeof ToolManagerConfig>;

/** The client's id: `id` when given, else its name. */
export function clientId(c: Pick<ClientConfig, "id" | "name">): string {
  return c.id ?? c.name;
}

/** SPEC 2.5: `config.*` is the older spelling; when present it wins over `client.*`. */
export function effectiveTuning(cfg: GatewayConfig): { dropExcessRequests: boolean; initialPoolSize: number } {
  return {
    dropExcessRequests: cfg.config?.drop_excess_requests ?? cfg.client.drop_excess_requests,
    initialPoolSize: cfg.config?.initial_pool_size ?? cfg.client.initial_pool_size,
  };
}
