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

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds of a duration string such as `10s`, `500ms`, `2m`. Throws on a malformed value. */
export function durationMs(value: string): number {
  const m = DURATION_PATTERN.exec(value);
  if (!m)
    throw new RangeError(
      `"${value}" is not a duration; use a number with ms, s, m or h (e.g. "10s")`,
    );
  return Number(m[1]) * (UNIT_MS[m[2] ?? "s"] ?? 1000);
}

export const Duration = z
  .string()
  .regex(DURATION_PATTERN, {
    message:
      'must be a duration: a number with ms, s, m or h, e.g. "10s" or "500ms"',
  })
  .meta({
    description: 'Duration: a number followed by ms, s, m or h, e.g. "10s"',
  });

/** Intervals and timeouts: zero would mean a busy loop or an instant failure, never what was meant. */
export const PositiveDuration = Duration.refine(
  (v) => !DURATION_PATTERN.test(v) || durationMs(v) > 0,
  {
    message: 'must be greater than zero, e.g. "10s"',
  },
);

/** `env.<VAR>`: the value is read from the environment (or the secrets directory) when used. */
export const ENV_REF_PATTERN = /^env\.[A-Za-z_][A-Za-z0-9_]*$/;

/** A secret-bearing string: a literal of at least `min` characters (`why` says why), or an `env.<VAR>` reference. */
function secretString(min = 1, why?: string) {
  const message =
    min <= 1
      ? "must not be empty; give the value or an env.<VAR> reference"
      : `must be at least ${min} characters (${why ?? "secret"}), or an env.<VAR> reference`;
  return z
    .string()
    .refine((v) => ENV_REF_PATTERN.test(v) || v.length >= min, { message });
}

/** An http(s) URL, or an `env.<VAR>` reference to one (URLs of MCP servers often embed a token). */
const UrlOrEnvRef = z
  .string()
  .refine((v) => ENV_REF_PATTERN.test(v) || /^https?:\/\/[^\s/]+/.test(v), {
    message: "must be an http:// or https:// URL, or an env.<VAR> reference",
  });

const HttpUrl = z.url({
  protocol: /^https?$/,
  error: "must be an http:// or https:// URL",
});

/** RFC 9110 field names (tokens); a space or colon in a header name is a typo, not a header. */
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const ClientName = z.string().regex(CLIENT_NAME_PATTERN, {
  message:
    "must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)",
});

/** `["*"]` = all, empty or absent = none, otherwise exactly these names. */
export const ToolList = z.array(z.string().min(1));

export const StdioConfig = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Names of environment variables passed to the child (their values come from the gateway's environment). */
  envs: z
    .array(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
        message: "must be an environment variable name",
      }),
    )
    .default([]),
});

export const OAuthConfig = z.strictObject({
  client_id: z.string().min(1).optional(),
  /** Secret; `env.<VAR>` allowed. Omitted for public clients (PKCE). */
  client_secret: secretString().optional(),
  authorize_url: HttpUrl.optional(),
  token_url: HttpUrl.optional(),
  registration_url: HttpUrl.optional(),
  server_url: HttpUrl.optional(),
  scopes: z.array(z.string().min(1)).default([]),
});

export const ConnectionType = z.enum(["stdio", "http", "sse"]);
export const AuthType = z.enum(["headers", "oauth"]);

const clientFields = {
  /** Used in `/api/mcp/client/{id}` paths, so it is limited to URL-safe characters. */
  id: z
    .string()
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/, {
      message:
        "must use ASCII letters, digits, '_', '.' and '-' only, starting with a letter, digit or '_'",
    })
    .max(200)
    .describe(
      "Client identifier, used in /api/mcp/client/{id} paths; default: the name",
    )
    .optional(),
  name: ClientName.describe(
    "Unique name: ASCII letters, digits and underscores, not starting with a digit; tools are exposed as <name>_<tool>",
  ),
  connection_type: ConnectionType.describe(
    "stdio (a child process), http (streamable HTTP) or sse",
  ),
  /** URL of the server, or `env.<VAR>`. Required for http and sse. */
  connection_string: UrlOrEnvRef.describe(
    "URL of the MCP server (http and sse), or env.<VAR>",
  ).optional(),
  stdio_config: StdioConfig.describe(
    "Command, args and passed environment variable names (stdio)",
  ).optional(),
  auth_type: AuthType.describe(
    "headers (static headers) or oauth; http and sse only",
  ).optional(),
  /** Header values are secret-bearing; `env.<VAR>` allowed. */
  headers: z
    .record(
      z.string().regex(HEADER_NAME_PATTERN, {
        message: "must be an HTTP header name (letters, digits and -)",
      }),
      z.string(),
    )
    .describe(
      "Static headers sent to the server (auth_type headers); values may be env.<VAR>",
    )
    .optional(),
  oauth_config: OAuthConfig.describe(
    "OAuth 2.0 settings (auth_type oauth)",
  ).optional(),
  tools_to_execute: ToolList.describe(
    'Tools included: ["*"] = all, empty = none, else exactly these',
  ).default([]),
  tools_to_auto_execute: ToolList.describe(
    'Tools run automatically in agent mode; a subset of tools_to_execute ("*" = all)',
  ).default([]),
  is_code_mode_client: z
    .boolean()
    .describe("Reach this client's tools only through the code-mode meta-tools")
    .default(false),
  is_ping_available: z
    .boolean()
    .describe("Health checks by ping (true) or by listing tools (false)")
    .default(true),
};

type ClientShape = z.infer<z.ZodObject<typeof clientFields>>;

/**
 * The cross-field rules run even when a field of the same object is invalid (zod's default is
 * to skip them), so one run reports every problem. They therefore read the value loosely: a
 * field may still hold the raw, wrong-typed input.
 */
type Loose<T> = { readonly [K in keyof T]?: unknown };
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const CONNECTION_TYPES: readonly unknown[] = ["stdio", "http", "sse"];
/** zod option: run a refinement whenever the value is an object, despite issues in its fields. */
export const RUN_ON_OBJECTS = {
  when: (payload: { value: unknown }) => isRecord(payload.value),
};

/** Cross-field rules of SPEC 2.1, shared by the file schema and the management API. */
export function checkClientRules(
  client: ClientShape,
  ctx: z.RefinementCtx,
): void {
  const c: Loose<ClientShape> = client;
  const issue: IssueFn = (path, message) =>
    ctx.addIssue({ code: "custom", path: [path], message });
  if (CONNECTION_TYPES.includes(c.connection_type))
    checkTransportRules(c, issue);
  checkAuthRules(c, issue);
  if (
    Array.isArray(c.tools_to_execute) &&
    Array.isArray(c.tools_to_auto_execute)
  ) {
    checkAutoSubset(c.tools_to_execute, c.tools_to_auto_execute, ctx);
  }
}

type IssueFn = (path: string, message: string) => void;

function checkTransportRules(c: Loose<ClientShape>, issue: IssueFn): void {
  if (c.connection_type === "stdio") {
    if (!c.stdio_config)
      issue("stdio_config", "is required when connection_type is stdio");
    if (c.auth_type)
      issue(
        "auth_type",
        "stdio clients have no authentication; remove auth_type",
      );
    if (c.connection_string)
      issue(
        "connection_string",
        "is not used by stdio clients; use stdio_config",
      );
  } else {
    const type = String(c.connection_type);
    if (!c.connection_string)
      issue("connection_string", `is required when connection_type is ${type}`);
    if (c.stdio_config)
      issue("stdio_config", `is only for stdio clients, not ${type}`);
  }
}

function checkAuthRules(c: Loose<ClientShape>, issue: IssueFn): void {
  if (c.auth_type === "headers" && !c.headers)
    issue("headers", "is required when auth_type is headers");
  if (c.auth_type !== "headers" && c.headers)
    issue("headers", 'needs auth_type "headers"');
  checkOAuthRules(c, issue);
}

function checkOAuthRules(c: Loose<ClientShape>, issue: IssueFn): void {
  if (c.auth_type === "oauth" && !c.oauth_config)
    issue("oauth_config", "is required when auth_type is oauth");
  if (c.auth_type !== "oauth" && c.oauth_config)
    issue("oauth_config", 'needs auth_type "oauth"');
  // SPEC 7: without an authorize_url the endpoints can only be discovered from server_url.
  if (
    isRecord(c.oauth_config) &&
    !c.oauth_config.authorize_url &&
    !c.oauth_config.server_url
  ) {
    issue(
      "oauth_config",
      "needs authorize_url or server_url (server_url lets the gateway discover the endpoints)",
    );
  }
}

export function checkAutoSubset(
  exec: readonly unknown[],
  auto: readonly unknown[],
  ctx: z.RefinementCtx,
): void {
  if (exec.includes("*")) return;
  for (const [i, t] of auto.entries()) {
    if (typeof t !== "string") continue;
    if (t === "*") {
      ctx.addIssue({
        code: "custom",
        path: ["tools_to_auto_execute", i],
        message:
          '"*" needs "*" in tools_to_execute too (auto-executed tools must be a subset of tools_to_execute)',
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
export const ClientConfig = ClientConfigObject.superRefine(
  checkClientRules,
  RUN_ON_OBJECTS,
);

export const HealthMonitorConfig = z.strictObject({
  check_interval: PositiveDuration.default("10s"),
  check_timeout: PositiveDuration.default("5s"),
  max_consecutive_failures: z.int().min(1).default(5),
});

export const ToolManagerConfig = z.strictObject({
  code_mode_binding_level: z.enum(["server", "tool"]).default("server"),
  tool_execution_timeout: PositiveDuration.default("30s"),
  max_agent_depth: z.int().min(1).max(1000).default(10),
});

export const McpSection = z.strictObject({
  client_configs: z.array(ClientConfig).default([]),
  health_monitor_config: HealthMonitorConfig.prefault({}),
  tool_manager_config: ToolManagerConfig.prefault({}),
});

/**
 * Label names every gateway metric already carries (SPEC 11.1, 11.2); a custom label with one of
 * these names would make prom-client reject the metric, so it is refused in the config instead.
 */
export const RESERVED_METRIC_LABELS: readonly string[] = [
  "path",
  "method",
  "status",
  "provider",
  "model",
  "virtual_key_id",
  "virtual_key_name",
  "routing_engines_used",
  "routing_rule_id",
  "routing_rule_name",
  "selected_key_id",
  "selected_key_name",
  "number_of_retries",
  "fallback_index",
  "reason",
  "is_success",
  "cache_type",
  "le",
  "quantile",
];

export const PrometheusLabel = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, {
    message:
      "must be a Prometheus label name (letters, digits and underscores, not starting with a digit)",
  })
  .refine((v) => !v.startsWith("__"), {
    message: 'must not start with "__" (reserved by Prometheus)',
  })
  .refine((v) => !RESERVED_METRIC_LABELS.includes(v), {
    message: `is already a label of the gateway's metrics; reserved: ${RESERVED_METRIC_LABELS.join(", ")}`,
  });

/**
 * `client.*` and `config.*` are both spellings of SPEC 2.5. `client.*` carries the defaults;
 * `config.*`, when present, overrides it (see `effectiveTuning`).
 */
export const ClientSection = z.strictObject({
  enforce_governance_header: z.boolean().default(false),
  prometheus_labels: z.array(PrometheusLabel).default([]),
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
  base_url: HttpUrl,
  /** Secret; `env.<VAR>` allowed. Absent for providers that need no key (a local model server). */
  api_key: secretString().optional(),
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
  value: secretString(),
  is_active: z.boolean().default(true),
  mcp_configs: z.array(VirtualKeyMcpConfig).default([]),
});

export const GovernanceSection = z.strictObject({
  virtual_keys: z.array(VirtualKey).default([]),
});

export const ServerSection = z.strictObject({
  host: z
    .string()
    .describe("Listen address (--host, TOOLGATE_HOST override it)")
    .default("127.0.0.1"),
  port: z
    .int()
    .min(0)
    .max(65535)
    .describe("Listen port, 0 = any free port (--port, TOOLGATE_PORT)")
    .default(8080),
  /** HTTP Basic auth for /api/*, /config and /metrics. Absent: those answer loopback callers only. */
  auth: z
    .strictObject({ username: z.string().min(1), password: secretString() })
    .describe(
      "HTTP Basic auth for /api/*, /config and /metrics; absent: loopback callers only",
    )
    .optional(),
  /** Creating stdio clients through the API runs a command on the host; off unless set. */
  allow_stdio_from_api: z.boolean().default(false),
  shutdown_grace_period: Duration.describe(
    "Time in-flight requests get to finish on SIGTERM/SIGINT",
  ).default("10s"),
  body_limit_api: z
    .int()
    .min(1024)
    .default(1024 * 1024),
  body_limit_mcp: z
    .int()
    .min(1024)
    .default(4 * 1024 * 1024),
  log_level: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .describe("pino log level")
    .default("info"),
  /** Secret used to sign /mcp session ids; `env.` allowed. Absent: a random key per process. */
  session_secret: secretString(16, "it signs session ids").optional(),
});

export const StateSection = z.strictObject({
  /** Absent: in-memory store (or TOOLGATE_REDIS_URL). `redis://`, `rediss://` (TLS), `redis+sentinel://`; `env.` allowed. */
  redis_url: z
    .string()
    .refine(
      (v) =>
        ENV_REF_PATTERN.test(v) ||
        /^(rediss?|redis\+sentinel):\/\/\S+$/.test(v),
      {
        message:
          "must be a redis://, rediss:// or redis+sentinel:// URL, or an env.<VAR> reference",
      },
    )
    .optional(),
  /** Key for encrypting OAuth tokens at rest (AES-256-GCM); `env.` allowed. */
  encryption_key: secretString(16, "it encrypts stored tokens").optional(),
});

export const GatewayConfigObject = z.strictObject({
  $schema: z.string().optional(),
  server: ServerSection.describe(
    "Toolgate's own listener, auth, limits and logging",
  ).prefault({}),
  state: StateSection.describe(
    "Shared state: in-memory unless redis_url is set",
  ).prefault({}),
  mcp: McpSection.describe(
    "MCP clients, health monitoring and tool execution (SPEC 2.1, 2.5)",
  ).prefault({}),
  client: ClientSection.describe(
    "Gateway behaviour: governance, metric labels, tuning (SPEC 2.5)",
  ).prefault({}),
  config: LegacyConfigSection.describe(
    "Older spelling of client.drop_excess_requests / initial_pool_size; wins when set",
  ).optional(),
  providers: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.-]+$/, {
        message: "provider names use letters, digits, '.', '_' and '-'",
      }),
      ProviderConfig,
    )
    .default({}),
  governance: GovernanceSection.describe(
    "Virtual keys and their per-client tool filters",
  ).prefault({}),
});

/** The objects of an array with their indices; anything else (wrong-typed input) is skipped. */
function objectsOf(v: unknown): Array<[number, Record<string, unknown>]> {
  return Array.isArray(v)
    ? v.flatMap((x, i): Array<[number, Record<string, unknown>]> =>
        isRecord(x) ? [[i, x]] : [],
      )
    : [];
}

function section(
  v: Record<string, unknown>,
  key: string,
): Record<string, unknown> {
  const s = v[key];
  return isRecord(s) ? s : {};
}

export const GatewayConfig = GatewayConfigObject.superRefine((cfg, ctx) => {
  const root: Record<string, unknown> = cfg;
  checkClientUniqueness(objectsOf(section(root, "mcp").client_configs), ctx);
  checkVirtualKeys(objectsOf(section(root, "governance").virtual_keys), ctx);
}, RUN_ON_OBJECTS);

function checkClientUniqueness(
  clients: Array<[number, Record<string, unknown>]>,
  ctx: z.RefinementCtx,
): void {
  const seen = new Map<string, number>();
  const ids = new Map<string, number>();
  for (const [i, c] of clients) {
    if (typeof c.name !== "string") continue;
    const prev = seen.get(c.name);
    if (prev !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["mcp", "client_configs", i, "name"],
        message: `is already used by mcp.client_configs[${prev}]; client names must be unique`,
      });
    } else seen.set(c.name, i);
    const id = typeof c.id === "string" ? c.id : c.name;
    const prevId = ids.get(id);
    // A repeated name is already reported; its default id (the name) repeating too is the same mistake.
    if (prevId !== undefined && (c.id !== undefined || prev === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: ["mcp", "client_configs", i, c.id === undefined ? "name" : "id"],
        message: `is already the id of mcp.client_configs[${prevId}]; client ids (the name when id is absent) must be unique`,
      });
    } else ids.set(id, i);
  }
}

/** Names, ids and values of virtual keys are unique: a shared value would make the caller ambiguous. */
function checkVirtualKeys(
  keys: Array<[number, Record<string, unknown>]>,
  ctx: z.RefinementCtx,
): void {
  const seen = {
    name: new Map<string, number>(),
    id: new Map<string, number>(),
    value: new Map<string, number>(),
  };
  for (const [i, vk] of keys) {
    for (const field of ["name", "id", "value"] as const) {
      const v = vk[field];
      if (typeof v !== "string") continue;
      const prev = seen[field].get(v);
      if (prev === undefined) {
        seen[field].set(v, i);
        continue;
      }
      ctx.addIssue({
        code: "custom",
        path: ["governance", "virtual_keys", i, field],
        message: `is already used by governance.virtual_keys[${prev}]; virtual key ${field}s must be unique`,
      });
    }
  }
}

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
export function effectiveTuning(cfg: GatewayConfig): {
  dropExcessRequests: boolean;
  initialPoolSize: number;
} {
  return {
    dropExcessRequests:
      cfg.config?.drop_excess_requests ?? cfg.client.drop_excess_requests,
    initialPoolSize:
      cfg.config?.initial_pool_size ?? cfg.client.initial_pool_size,
  };
}
