import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "vitest";

import { defaultConfig } from "./defaults.js";
import {
  ConfigError,
  loadConfigFile,
  parseConfig,
  parseConfigText,
} from "./load.js";
import { didYouMean } from "./problems.js";
import { effectiveTuning } from "./schema.js";

const stdio = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  connection_type: "stdio",
  stdio_config: { command: "node", args: ["server.js"] },
  ...extra,
});
const http = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  connection_type: "http",
  connection_string: "https://mcp.example.com/mcp",
  ...extra,
});

function problemsOf(raw: unknown): string[] {
  try {
    parseConfig(raw, "test.yaml");
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).message
      .split("\n")
      .slice(1)
      .map((l) => l.replace(/^ {2}- /, ""));
  }
  throw new Error("the config was accepted");
}

describe("valid configurations", () => {
  test.each([
    ["an empty file (all defaults)", {}],
    ["an empty YAML document (null)", null],
    ["a stdio client", { mcp: { client_configs: [stdio("files")] } }],
    [
      "an http client with header auth from env",
      {
        mcp: {
          client_configs: [
            http("web_search", {
              auth_type: "headers",
              headers: { Authorization: "env.TOKEN" },
            }),
          ],
        },
      },
    ],
    [
      "an sse client with an env connection string",
      {
        mcp: {
          client_configs: [
            {
              name: "myAPI",
              connection_type: "sse",
              connection_string: "env.SSE_URL",
            },
          ],
        },
      },
    ],
    [
      "an oauth client with discovery",
      {
        mcp: {
          client_configs: [
            http("tool123", {
              auth_type: "oauth",
              oauth_config: {
                server_url: "https://auth.example.com",
                scopes: ["read"],
              },
            }),
          ],
        },
      },
    ],
    [
      "auto-execute a subset",
      {
        mcp: {
          client_configs: [
            stdio("a", {
              tools_to_execute: ["x", "y"],
              tools_to_auto_execute: ["y"],
            }),
          ],
        },
      },
    ],
    [
      "auto-execute all with all executable",
      {
        mcp: {
          client_configs: [
            stdio("a", {
              tools_to_execute: ["*"],
              tools_to_auto_execute: ["*"],
            }),
          ],
        },
      },
    ],
    [
      "both tuning spellings",
      {
        client: { drop_excess_requests: true },
        config: { initial_pool_size: 100 },
      },
    ],
    [
      "a provider with an env key",
      {
        providers: {
          openai: {
            base_url: "https://api.openai.com/v1",
            api_key: "env.OPENAI_API_KEY",
          },
        },
      },
    ],
    [
      "virtual keys",
      {
        governance: {
          virtual_keys: [
            {
              name: "team_a",
              value: "vk-aaaa",
              mcp_configs: [
                { mcp_client_name: "files", tools_to_execute: ["*"] },
              ],
            },
          ],
        },
      },
    ],
    [
      "server and state",
      {
        server: {
          host: "0.0.0.0",
          port: 0,
          auth: { username: "admin", password: "env.ADMIN_PW" },
        },
        state: { redis_url: "redis://127.0.0.1:6379" },
      },
    ],
    ["a JSON Schema reference", { $schema: "./config.schema.json" }],
  ])("accepts %s", (_name, raw) => {
    expect(() => parseConfig(raw)).not.toThrow();
  });

  test("fills every default of SPEC 8.1 and the server defaults", () => {
    const cfg = parseConfig({
      providers: { openai: { base_url: "https://api.openai.com/v1" } },
      mcp: { client_configs: [stdio("a")] },
    });
    expect(cfg.mcp.health_monitor_config).toEqual({
      check_interval: "10s",
      check_timeout: "5s",
      max_consecutive_failures: 5,
    });
    expect(cfg.mcp.tool_manager_config).toEqual({
      code_mode_binding_level: "server",
      tool_execution_timeout: "30s",
      max_agent_depth: 10,
    });
    expect(cfg.providers.openai?.concurrency_and_buffer_size).toEqual({
      concurrency: 1000,
      buffer_size: 5000,
    });
    expect(effectiveTuning(cfg)).toEqual({
      dropExcessRequests: false,
      initialPoolSize: 5000,
    });
    expect(cfg.server).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
      shutdown_grace_period: "10s",
      body_limit_api: 1048576,
      body_limit_mcp: 4194304,
    });
    expect(cfg.client.enforce_governance_header).toBe(false);
    expect(cfg.mcp.client_configs[0]).toMatchObject({
      tools_to_execute: [],
      tools_to_auto_execute: [],
      is_ping_available: true,
      is_code_mode_client: false,
    });
    expect(cfg.state.redis_url).toBeUndefined();
  });

  test("config.* wins over client.* (SPEC 2.5 older spelling)", () => {
    const cfg = parseConfig({
      client: { drop_excess_requests: false, initial_pool_size: 10 },
      config: { drop_excess_requests: true },
    });
    expect(effectiveTuning(cfg)).toEqual({
      dropExcessRequests: true,
      initialPoolSize: 10,
    });
  });

  test("the embedded default runs server-everything with this node and all its tools", () => {
    const [client] = defaultConfig().mcp.client_configs;
    expect(client).toMatchObject({
      name: "everything",
      connection_type: "stdio",
      tools_to_execute: ["*"],
    });
    expect(client?.stdio_config?.command).toBe(process.execPath);
    expect(client?.stdio_config?.args[0]).toMatch(
      /server-everything[/\\]dist[/\\]index\.js$/,
    );
  });
});

describe("invalid configurations list every problem with path, value and what is allowed", () => {
  test.each<[string, unknown, string[]]>([
    [
      "a name with a hyphen",
      {
        mcp: { client_configs: [stdio("ok"), stdio("fine"), stdio("my-api")] },
      },
      [
        'mcp.client_configs[2].name "my-api": must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)',
      ],
    ],
    [
      "a name with a space and one starting with a digit",
      { mcp: { client_configs: [stdio("my api"), stdio("1tool")] } },
      [
        'mcp.client_configs[0].name "my api": must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)',
        'mcp.client_configs[1].name "1tool": must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)',
      ],
    ],
    [
      "duplicate client names",
      { mcp: { client_configs: [stdio("files"), stdio("files")] } },
      [
        'mcp.client_configs[1].name "files": is already used by mcp.client_configs[0]; client names must be unique',
      ],
    ],
    [
      "an unknown connection type",
      {
        mcp: { client_configs: [{ name: "a", connection_type: "websocket" }] },
      },
      [
        'mcp.client_configs[0].connection_type "websocket": must be one of "stdio", "http", "sse"',
      ],
    ],
    [
      "an http client without a URL",
      { mcp: { client_configs: [{ name: "a", connection_type: "http" }] } },
      [
        "mcp.client_configs[0].connection_string: is required when connection_type is http",
      ],
    ],
    [
      "a stdio client without stdio_config and with auth",
      {
        mcp: {
          client_configs: [
            {
              name: "a",
              connection_type: "stdio",
              auth_type: "headers",
              headers: { A: "b" },
            },
          ],
        },
      },
      [
        "mcp.client_configs[0].stdio_config: is required when connection_type is stdio",
        'mcp.client_configs[0].auth_type "headers": stdio clients have no authentication; remove auth_type',
      ],
    ],
    [
      "header auth without headers",
      { mcp: { client_configs: [http("a", { auth_type: "headers" })] } },
      ["mcp.client_configs[0].headers: is required when auth_type is headers"],
    ],
    [
      "oauth without authorize_url or server_url",
      {
        mcp: {
          client_configs: [
            http("a", { auth_type: "oauth", oauth_config: { client_id: "x" } }),
          ],
        },
      },
      [
        'mcp.client_configs[0].oauth_config {"client_id":"x"}: needs authorize_url or server_url (server_url lets the gateway discover the endpoints)',
      ],
    ],
    [
      "auto-executed tools outside tools_to_execute",
      {
        mcp: {
          client_configs: [
            stdio("a", {
              tools_to_execute: ["x"],
              tools_to_auto_execute: ["x", "y", "*"],
            }),
          ],
        },
      },
      [
        'mcp.client_configs[0].tools_to_auto_execute[1] "y": "y" is not in tools_to_execute (auto-executed tools must be a subset of tools_to_execute)',
        'mcp.client_configs[0].tools_to_auto_execute[2] "*": "*" needs "*" in tools_to_execute too (auto-executed tools must be a subset of tools_to_execute)',
      ],
    ],
    [
      "a connection string that is neither a URL nor an env reference (redacted)",
      {
        mcp: {
          client_configs: [
            http("a", { connection_string: "mcp.example.com/s/secret-token" }),
          ],
        },
      },
      [
        'mcp.client_configs[0].connection_string "***": must be an http:// or https:// URL, or an env.<VAR> reference',
      ],
    ],
    [
      "malformed durations and a fractional count",
      {
        mcp: {
          health_monitor_config: {
            check_interval: "10 seconds",
            check_timeout: "0s",
            max_consecutive_failures: 1.5,
          },
        },
      },
      [
        'mcp.health_monitor_config.check_interval "10 seconds": must be a duration: a number with ms, s, m or h, e.g. "10s" or "500ms"',
        'mcp.health_monitor_config.check_timeout "0s": must be greater than zero, e.g. "10s"',
        "mcp.health_monitor_config.max_consecutive_failures 1.5: must be a whole number, not a fraction",
      ],
    ],
    [
      "a wrong binding level and a zero agent depth",
      {
        mcp: {
          tool_manager_config: {
            code_mode_binding_level: "file",
            max_agent_depth: 0,
          },
        },
      },
      [
        'mcp.tool_manager_config.code_mode_binding_level "file": must be one of "server", "tool"',
        "mcp.tool_manager_config.max_agent_depth 0: must be at least 1",
      ],
    ],
    [
      "unknown keys with suggestions",
      {
        servr: {},
        mcp: {
          client_configs: [stdio("a", { toolsToExecute: ["*"] })],
          health_monitor: {},
        },
        client: { zzz: 1 },
      },
      [
        'mcp.client_configs[0].toolsToExecute: unknown key; did you mean "tools_to_execute"?',
        'mcp.health_monitor: unknown key; did you mean "health_monitor_config"?',
        "client.zzz: unknown key; allowed keys: enforce_governance_header, prometheus_labels, drop_excess_requests, initial_pool_size, allowed_origins",
        'servr: unknown key; did you mean "server"?',
      ],
    ],
    [
      "wrong types",
      {
        server: { port: "8080", host: 1 },
        client: { enforce_governance_header: "yes" },
        mcp: { client_configs: {} },
      },
      [
        "server.host 1: must be a string, not a number",
        'server.port "8080": must be a number, not a string',
        "mcp.client_configs {}: must be an array, not an object",
        'client.enforce_governance_header "yes": must be true or false, not a string',
      ],
    ],
    [
      "a port out of range",
      { server: { port: 70000 } },
      ["server.port 70000: must be at most 65535"],
    ],
    [
      "reserved and malformed Prometheus labels",
      { client: { prometheus_labels: ["team", "method", "1x", "__name"] } },
      [
        'client.prometheus_labels[1] "method": is already a label of the gateway\'s metrics; reserved: path, method, status, provider, model, virtual_key_id, virtual_key_name, routing_engines_used, routing_rule_id, routing_rule_name, selected_key_id, selected_key_name, number_of_retries, fallback_index, reason, is_success, cache_type, le, quantile',
        'client.prometheus_labels[2] "1x": must be a Prometheus label name (letters, digits and underscores, not starting with a digit)',
        'client.prometheus_labels[3] "__name": must not start with "__" (reserved by Prometheus)',
      ],
    ],
    [
      "a provider without base_url and a bad buffer",
      {
        providers: {
          openai: {
            api_key: "sk-live-123",
            concurrency_and_buffer_size: { concurrency: 0 },
          },
        },
      },
      [
        "providers.openai.base_url: is required",
        "providers.openai.concurrency_and_buffer_size.concurrency 0: must be at least 1",
      ],
    ],
    [
      "virtual keys with duplicate names and values (values redacted)",
      {
        governance: {
          virtual_keys: [
            { name: "a", value: "vk-secret-1" },
            { name: "a", value: "vk-secret-1" },
          ],
        },
      },
      [
        'governance.virtual_keys[1].name "a": is already used by governance.virtual_keys[0]; virtual key names must be unique',
        'governance.virtual_keys[1].value "***": is already used by governance.virtual_keys[0]; virtual key values must be unique',
      ],
    ],
    [
      "short literal secrets for sessions and encryption",
      {
        server: { session_secret: "short" },
        state: { encryption_key: "tiny", redis_url: "http://redis:6379" },
      },
      [
        'server.session_secret "***": must be at least 16 characters (it signs session ids), or an env.<VAR> reference',
        'state.redis_url "***": must be a redis://, rediss:// or redis+sentinel:// URL, or an env.<VAR> reference',
        'state.encryption_key "***": must be at least 16 characters (it encrypts stored tokens), or an env.<VAR> reference',
      ],
    ],
    [
      "a list at the top",
      [1, 2],
      [
        "(root): the file must hold an object (a mapping of keys to values) at the top level",
      ],
    ],
    [
      "a repeated id",
      {
        mcp: {
          client_configs: [
            stdio("a", { id: "x" }),
            stdio("b", { id: "x" }),
            stdio("x"),
          ],
        },
      },
      [
        'mcp.client_configs[1].id "x": is already the id of mcp.client_configs[0]; client ids (the name when id is absent) must be unique',
        'mcp.client_configs[2].name "x": is already the id of mcp.client_configs[0]; client ids (the name when id is absent) must be unique',
      ],
    ],
    [
      "problems in different places at once, cross-field rules included",
      {
        server: { port: "x" },
        mcp: {
          client_configs: [
            { name: "bad-name", connection_type: "stdio" },
            stdio("dup"),
            stdio("dup", {
              tools_to_execute: ["a"],
              tools_to_auto_execute: ["b"],
              is_ping_available: "yes",
            }),
            "not an object",
          ],
        },
        governance: {
          virtual_keys: [
            { name: "k", value: "v1", is_active: 1 },
            { name: "k", value: "v2" },
          ],
        },
      },
      [
        'server.port "x": must be a number, not a string',
        'mcp.client_configs[0].name "bad-name": must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)',
        "mcp.client_configs[0].stdio_config: is required when connection_type is stdio",
        'mcp.client_configs[2].is_ping_available "yes": must be true or false, not a string',
        'mcp.client_configs[2].tools_to_auto_execute[0] "b": "b" is not in tools_to_execute (auto-executed tools must be a subset of tools_to_execute)',
        // A scalar where an object of secrets belongs may itself be a secret, so it is hidden too.
        'mcp.client_configs[3] "***": must be an object, not a string',
        "governance.virtual_keys[0].is_active 1: must be true or false, not a number",
        'mcp.client_configs[2].name "dup": is already used by mcp.client_configs[1]; client names must be unique',
        'governance.virtual_keys[1].name "k": is already used by governance.virtual_keys[0]; virtual key names must be unique',
      ],
    ],
  ])("rejects %s", (_name, raw, expected) => {
    expect(problemsOf(raw)).toEqual(expected);
  });

  test("the message starts with the source and the number of problems", () => {
    expect(() =>
      parseConfig(
        { server: { port: -1 }, client: { x: 1 } },
        "/etc/toolgate.yaml",
      ),
    ).toThrow(
      /^\/etc\/toolgate\.yaml: the configuration is invalid \(2 problems\)\n {2}- /,
    );
  });

  test("a value that would leak a secret is never quoted", () => {
    const secrets = [
      "hunter2-password",
      "sk-live-abcdef",
      "Bearer xyz-token",
      "client-secret-value",
    ];
    const messages = [
      problemsOf({ server: { auth: { username: "u", password: 123456 } } }),
      problemsOf({ server: { auth: { username: "u", pasword: secrets[0] } } }),
      problemsOf({
        providers: { openai: { base_url: "x", api_key: secrets[1] } },
      }),
      problemsOf({
        mcp: {
          client_configs: [
            http("a", { auth_type: "headers", headers: secrets[2] }),
          ],
        },
      }),
      problemsOf({
        mcp: {
          client_configs: [
            http("a", {
              auth_type: "oauth",
              oauth_config: {
                client_secret: secrets[3],
                authorize_url: "nope",
              },
            }),
          ],
        },
      }),
    ]
      .flat()
      .join("\n");
    for (const s of [...secrets, "123456"]) expect(messages).not.toContain(s);
    expect(messages).toContain(
      'server.auth.pasword: unknown key; did you mean "password"?',
    );
    expect(messages).toContain(
      'mcp.client_configs[0].headers "***": must be an object, not a string',
    );
  });
});

describe("files", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-load-"));
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  test("reads YAML and JSON to the same config", () => {
    const yaml = write(
      "a.yaml",
      "mcp:\n  client_configs:\n    - name: files\n      connection_type: stdio\n      stdio_config: { command: node }\n",
    );
    const json = write(
      "a.json",
      JSON.stringify({
        mcp: {
          client_configs: [
            {
              name: "files",
              connection_type: "stdio",
              stdio_config: { command: "node" },
            },
          ],
        },
      }),
    );
    expect(loadConfigFile(yaml)).toEqual(loadConfigFile(json));
  });

  test("reports YAML syntax errors and duplicate keys", () => {
    const p = write("dup.yaml", "server:\n  port: 1\n  port: 2\n");
    expect(() => loadConfigFile(p)).toThrow(
      /not valid YAML: Map keys must be unique/,
    );
  });

  test("reports JSON syntax errors", () => {
    const p = write("bad.json", '{"server": ');
    expect(() => loadConfigFile(p)).toThrow(
      /^.*bad\.json: the configuration is invalid \(1 problem\)\n {2}- \(root\): not valid JSON: /,
    );
  });

  test("reports a missing file by name", () => {
    expect(() => loadConfigFile(join(dir, "nope.yaml"))).toThrow(
      /nope\.yaml: the configuration is invalid \(1 problem\)\n {2}- \(root\): cannot read the config file: the file does not exist/,
    );
  });

  test("parses text by the source's extension", () => {
    expect(parseConfigText("server:\n  port: 9\n", "x.yml").server.port).toBe(
      9,
    );
    expect(
      parseConfigText('{"server": {"port": 9}}', "x.json").server.port,
    ).toBe(9);
  });
});

describe("did you mean", () => {
  test.each([
    [
      "tools_to_exec",
      ["tools_to_execute", "tools_to_auto_execute"],
      "tools_to_execute",
    ],
    [
      "connectionType",
      ["connection_type", "connection_string"],
      "connection_type",
    ],
    ["Name", ["name", "id"], "name"],
    ["completely_unrelated", ["name", "id"], undefined],
  ])("suggests for %s", (key, known, expected) => {
    expect(didYouMean(key, known)).toBe(expected);
  });
});
