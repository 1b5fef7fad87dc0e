import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { describe, expect, test } from "vitest";

import { GatewayError } from "../errors.js";
import { missingEnvRefs, resolveSecret } from "./env.js";
import { checkEnv, ConfigError, parseConfig } from "./load.js";

/** A config that references a variable from every secret-bearing field. */
const everySecretField = {
  server: {
    auth: { username: "admin", password: "env.V_PASSWORD" },
    session_secret: "env.V_SESSION",
  },
  state: { redis_url: "env.V_REDIS", encryption_key: "env.V_ENC" },
  providers: {
    openai: { base_url: "https://api.openai.com/v1", api_key: "env.V_OPENAI" },
  },
  governance: { virtual_keys: [{ name: "k", value: "env.V_VK" }] },
  mcp: {
    client_configs: [
      {
        name: "a",
        connection_type: "http",
        connection_string: "env.V_URL",
        auth_type: "headers",
        headers: { Authorization: "env.V_HEADER" },
      },
      {
        name: "b",
        connection_type: "sse",
        connection_string: "https://x.example.com/sse",
        auth_type: "oauth",
        oauth_config: {
          client_secret: "env.V_OAUTH",
          server_url: "https://x.example.com",
        },
      },
    ],
  },
};
const ALL = [
  "V_URL",
  "V_HEADER",
  "V_OAUTH",
  "V_VK",
  "V_OPENAI",
  "V_PASSWORD",
  "V_SESSION",
  "V_REDIS",
  "V_ENC",
].sort();

describe("startup env check", () => {
  test("lists every missing variable of every secret-bearing field in one error", () => {
    let error: unknown;
    try {
      checkEnv(parseConfig(everySecretField), "toolgate.yaml", { env: {} });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const ce = error as ConfigError;
    expect(ce.code).toBe("TG_ERR_CONFIG_ENV_MISSING");
    expect(
      ce.problems
        .map((p) => /environment variable (\w+)/.exec(p.message)?.[1])
        .sort(),
    ).toEqual(ALL);
    expect(ce.message.split("\n")[0]).toMatch(
      /^toolgate\.yaml: environment variables (V_\w+, ){8}V_\w+ referenced by the configuration are not set$/,
    );
    expect(ce.message).toContain(
      '  - mcp.client_configs[0].headers.Authorization "env.V_HEADER": environment variable V_HEADER is not set',
    );
    expect(ce.message).toContain(
      '  - server.auth.password "env.V_PASSWORD": environment variable V_PASSWORD is not set',
    );
  });

  test("passes when the variables are set, in the environment or as files in the secrets dir", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-secrets-"));
    const env: Record<string, string> = {};
    ALL.forEach((name, i) => {
      if (i % 2 === 0) env[name] = `value-${name}`;
      else writeFileSync(join(dir, name), `file-${name}\n`);
    });
    expect(() =>
      checkEnv(parseConfig(everySecretField), "c", { env, secretsDir: dir }),
    ).not.toThrow();
  });

  test("names the secrets dir when a variable is in neither place", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-secrets-"));
    expect(() =>
      checkEnv(
        parseConfig({
          providers: { p: { base_url: "http://x", api_key: "env.NOPE" } },
        }),
        "c",
        {
          env: {},
          secretsDir: dir,
        },
      ),
    ).toThrow(
      `  - providers.p.api_key "env.NOPE": environment variable NOPE is not set and ${dir}/NOPE does not exist`,
    );
  });

  test("a literal secret needs no variable, and a reference outside secret fields is a plain string", () => {
    const cfg = parseConfig({
      providers: { p: { base_url: "http://x", api_key: "sk-literal" } },
      server: { host: "env.NOT_A_REF_HERE" },
    });
    expect(() => checkEnv(cfg, "c", { env: {} })).not.toThrow();
  });
});

describe("env references", () => {
  test("resolve from the environment before the secrets dir, and a file's trailing newline is dropped", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-secrets-"));
    writeFileSync(join(dir, "TOKEN"), "from-file\n");
    writeFileSync(join(dir, "ONLY_FILE"), "file-only\r\n");
    expect(
      resolveSecret("env.TOKEN", {
        env: { TOKEN: "from-env" },
        secretsDir: dir,
      }),
    ).toBe("from-env");
    expect(resolveSecret("env.ONLY_FILE", { env: {}, secretsDir: dir })).toBe(
      "file-only",
    );
    expect(resolveSecret("literal", { env: {} })).toBe("literal");
  });

  test("a missing reference throws TG_ERR_CONFIG_ENV_MISSING naming the variable", () => {
    expect(() => resolveSecret("env.GONE", { env: {} })).toThrow(GatewayError);
    expect(() => resolveSecret("env.GONE", { env: {} })).toThrow(
      "environment variable GONE is not set",
    );
  });

  test("missingEnvRefs deduplicates and keeps order", () => {
    expect(
      missingEnvRefs(["env.B", "x", "env.A", "env.B", "env.SET"], {
        env: { SET: "1" },
      }),
    ).toEqual(["B", "A"]);
  });
});
