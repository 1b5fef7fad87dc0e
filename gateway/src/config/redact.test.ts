import { describe, expect, test } from "vitest";

import { createLogger } from "../telemetry/logger.js";
import { parseConfig } from "./load.js";
import { redact, REDACTED, secretFields } from "./redact.js";
import { ClientConfig } from "./schema.js";

/** Every secret-bearing field, each holding a distinct literal secret. */
const LITERALS = {
  connection_string: "https://mcp.example.com/s/TOKEN-IN-PATH-1/mcp",
  header: "Bearer HEADER-SECRET-2",
  client_secret: "OAUTH-SECRET-3",
  vk: "VK-SECRET-4",
  api_key: "sk-PROVIDER-SECRET-5",
  password: "ADMIN-PASSWORD-6",
  session: "SESSION-SECRET-7-long-enough",
  redis: "redis://:REDIS-PASSWORD-8@redis:6379",
  encryption: "ENCRYPTION-KEY-9-long-enough",
};

const literalConfig = () =>
  parseConfig({
    server: {
      auth: { username: "admin", password: LITERALS.password },
      session_secret: LITERALS.session,
    },
    state: { redis_url: LITERALS.redis, encryption_key: LITERALS.encryption },
    providers: {
      openai: {
        base_url: "https://api.openai.com/v1",
        api_key: LITERALS.api_key,
      },
    },
    governance: { virtual_keys: [{ name: "k", value: LITERALS.vk }] },
    mcp: {
      client_configs: [
        {
          name: "a",
          connection_type: "http",
          connection_string: LITERALS.connection_string,
          auth_type: "headers",
          headers: { Authorization: LITERALS.header },
        },
        {
          name: "b",
          connection_type: "sse",
          connection_string: "env.B_URL",
          auth_type: "oauth",
          oauth_config: {
            client_id: "public-id",
            client_secret: LITERALS.client_secret,
            server_url: "https://auth.example.com",
          },
        },
      ],
    },
  });

describe("redact", () => {
  test("hides every literal secret of a config", () => {
    const text = JSON.stringify(redact(literalConfig()));
    for (const secret of Object.values(LITERALS))
      expect(text).not.toContain(secret);
    for (const secret of ["REDIS-PASSWORD-8", "TOKEN-IN-PATH-1"])
      expect(text).not.toContain(secret);
  });

  test("covers every secret field: each one is *** in the redacted config", () => {
    const cfg = literalConfig();
    const fields = secretFields(cfg);
    expect(fields.map((f) => f.value).sort()).toEqual(
      [...Object.values(LITERALS), "env.B_URL"].sort(),
    );
    const redacted = secretFields(redact(cfg));
    expect(
      redacted
        .filter((f) => f.value !== "env.B_URL")
        .every((f) => f.value === REDACTED),
    ).toBe(true);
  });

  test("shows env references as written and leaves non-secrets alone", () => {
    const r = redact(literalConfig());
    expect(r.mcp.client_configs[1]?.connection_string).toBe("env.B_URL");
    expect(r.mcp.client_configs[1]?.oauth_config?.client_id).toBe("public-id");
    expect(r.server.auth?.username).toBe("admin");
    expect(r.providers.openai?.base_url).toBe("https://api.openai.com/v1");
    expect(r.mcp.client_configs[0]?.headers).toEqual({
      Authorization: REDACTED,
    });
  });

  test("redacts a single client config (the management API's form)", () => {
    const client = ClientConfig.parse({
      name: "c",
      connection_type: "http",
      connection_string: LITERALS.connection_string,
      auth_type: "headers",
      headers: { "X-Api-Key": LITERALS.api_key, "X-Env": "env.SOME_KEY" },
    });
    const r = redact(client);
    expect(r).toMatchObject({
      name: "c",
      connection_string: REDACTED,
      headers: { "X-Api-Key": REDACTED, "X-Env": "env.SOME_KEY" },
    });
    expect(JSON.stringify(r)).not.toContain(LITERALS.api_key);
    const oauth = redact(
      ClientConfig.parse({
        name: "o",
        connection_type: "http",
        connection_string: "env.U",
        auth_type: "oauth",
        oauth_config: {
          client_secret: LITERALS.client_secret,
          server_url: "https://a.example.com",
        },
      }),
    );
    expect(oauth.oauth_config?.client_secret).toBe(REDACTED);
  });

  test("does not change its input", () => {
    const cfg = literalConfig();
    redact(cfg);
    expect(cfg.server.auth?.password).toBe(LITERALS.password);
  });
});

describe("log redaction", () => {
  test("a config or client logged by mistake, and credential headers, are censored", () => {
    const lines: string[] = [];
    const logger = createLogger(literalConfig(), {
      destination: { write: (s: string) => lines.push(s) },
    });
    logger.info({ config: literalConfig() }, "config");
    logger.info({ client: literalConfig().mcp.client_configs[0] }, "client");
    logger.info(
      {
        req: {
          headers: {
            authorization: "Bearer VK-SECRET-4",
            "x-api-key": LITERALS.api_key,
            "x-bf-virtual-key": LITERALS.vk,
            cookie: "sid=SESSION-SECRET-7-long-enough",
            "proxy-authorization": "Basic QURNSU4tUEFTU1dPUkQtNg==",
          },
        },
      },
      "request",
    );
    logger.info(
      { res: { headers: { "set-cookie": "sid=REDIS-PASSWORD-8" } } },
      "response",
    );
    const text = lines.join("");
    expect(lines).toHaveLength(4);
    for (const secret of [
      ...Object.values(LITERALS),
      "REDIS-PASSWORD-8",
      "QURNSU4tUEFTU1dPUkQtNg==",
    ])
      expect(text).not.toContain(secret);
    expect(text).toContain('"username":"admin"');
  });
});
