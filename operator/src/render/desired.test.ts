import { GatewayConfig } from "@toolgate/gateway";
import { describe, expect, it } from "vitest";

import type { CustomObject } from "../crds/resources.js";
import { render, type SecretLookup } from "./desired.js";
import {
  headerSecretKey,
  oauthSecretKey,
  virtualKeySecretKey,
} from "./names.js";

let seq = 0;
function obj(
  name: string,
  spec: unknown,
  namespace = "ns",
  created?: string,
): CustomObject {
  seq++;
  return {
    metadata: {
      name,
      namespace,
      generation: 1,
      creationTimestamp:
        created ?? `2026-01-01T00:00:${String(seq % 60).padStart(2, "0")}Z`,
    },
    spec,
  };
}

const SECRETS: Record<string, Record<string, string>> = {
  "ns/tokens": { search: "Bearer abc", other: "x" },
  "ns/oauth": { secret: "client-secret" },
  "ns/vk": { key: "vk-value" },
  "ns/empty": { key: "" },
};
const secrets: SecretLookup = (ns, name) => SECRETS[`${ns}/${name}`];

const http = {
  connectionType: "http",
  connectionString: "https://s.example/mcp",
};

describe("render: one MCPClient in, config and secret values out", () => {
  it.each([
    [
      "a plain http client with defaults left out",
      { ...http },
      {
        name: "c",
        connection_type: "http",
        connection_string: "https://s.example/mcp",
      },
      {},
    ],
    [
      "a stdio client",
      {
        connectionType: "stdio",
        stdioConfig: { command: "npx", args: ["-y", "server"], envs: ["HOME"] },
        toolsToExecute: ["*"],
        toolsToAutoExecute: ["*"],
        isCodeModeClient: true,
      },
      {
        name: "c",
        connection_type: "stdio",
        stdio_config: {
          command: "npx",
          args: ["-y", "server"],
          envs: ["HOME"],
        },
        tools_to_execute: ["*"],
        tools_to_auto_execute: ["*"],
        is_code_mode_client: true,
      },
      {},
    ],
    [
      "headers from a Secret and a literal, in sorted order",
      {
        ...http,
        authType: "headers",
        headers: {
          "X-Z": { value: "literal" },
          Authorization: { secretKeyRef: { name: "tokens", key: "search" } },
        },
        isPingAvailable: false,
      },
      {
        name: "c",
        connection_type: "http",
        connection_string: "https://s.example/mcp",
        auth_type: "headers",
        headers: {
          Authorization: `env.${headerSecretKey("c", 0)}`,
          "X-Z": "literal",
        },
        is_ping_available: false,
      },
      { [headerSecretKey("c", 0)]: "Bearer abc" },
    ],
    [
      "OAuth with a client secret",
      {
        ...http,
        authType: "oauth",
        oauthConfig: {
          clientId: "id",
          clientSecretRef: { name: "oauth", key: "secret" },
          serverUrl: "https://s.example",
          scopes: ["a"],
        },
      },
      {
        name: "c",
        connection_type: "http",
        connection_string: "https://s.example/mcp",
        auth_type: "oauth",
        oauth_config: {
          client_id: "id",
          client_secret: `env.${oauthSecretKey("c")}`,
          server_url: "https://s.example",
          scopes: ["a"],
        },
      },
      { [oauthSecretKey("c")]: "client-secret" },
    ],
  ])("renders %s", (_label, spec, client, secretData) => {
    const r = render({ clients: [obj("c", spec)], virtualKeys: [], secrets });
    expect(r.clients.get("ns/c")).toEqual({ ok: true, name: "c" });
    expect(r.config.mcp?.client_configs).toEqual([client]);
    expect(r.secretData).toEqual(secretData);
    expect(GatewayConfig.safeParse(JSON.parse(r.configJson)).success).toBe(
      true,
    );
  });

  it.each([
    [
      "a missing Secret",
      {
        ...http,
        authType: "headers",
        headers: { A: { secretKeyRef: { name: "nope", key: "k" } } },
      },
      "SecretNotFound",
      'Secret "nope" not found in namespace "ns"',
    ],
    [
      "a missing key",
      {
        ...http,
        authType: "headers",
        headers: { A: { secretKeyRef: { name: "tokens", key: "nope" } } },
      },
      "SecretKeyNotFound",
      'has no key "nope"',
    ],
    ["an unknown field", { ...http, typo: true }, "InvalidSpec", "spec"],
    [
      "a bad enum",
      { connectionType: "ftp" },
      "InvalidSpec",
      "spec.connectionType",
    ],
    [
      "an auto-executed tool outside toolsToExecute",
      { ...http, toolsToExecute: ["a"], toolsToAutoExecute: ["b"] },
      "InvalidSpec",
      "spec.toolsToAutoExecute.0",
    ],
    [
      "stdio without stdioConfig",
      { connectionType: "stdio" },
      "InvalidSpec",
      "spec.stdioConfig",
    ],
    [
      "a header with both value and secretKeyRef",
      {
        ...http,
        authType: "headers",
        headers: {
          A: { value: "v", secretKeyRef: { name: "tokens", key: "search" } },
        },
      },
      "InvalidSpec",
      "exactly one",
    ],
    ["a missing spec", undefined, "InvalidSpec", "spec"],
  ])(
    "leaves out a client with %s and says why",
    (_label, spec, reason, message) => {
      const r = render({
        clients: [obj("bad", spec), obj("good", http)],
        virtualKeys: [],
        secrets,
      });
      const v = r.clients.get("ns/bad");
      expect(v).toMatchObject({ ok: false, reason });
      expect(v?.ok === false ? v.message : "").toContain(message);
      expect(r.config.mcp?.client_configs?.map((c) => c.name)).toEqual([
        "good",
      ]);
      expect(r.secretData).toEqual({});
    },
  );

  it("rejects a name that cannot map to a client name", () => {
    const r = render({ clients: [obj("3d", http)], virtualKeys: [], secrets });
    expect(r.clients.get("ns/3d")).toMatchObject({
      ok: false,
      reason: "InvalidName",
    });
  });

  it("gives a name claimed in two namespaces to the older resource", () => {
    const r = render({
      clients: [
        obj("web", http, "b", "2026-01-02T00:00:00Z"),
        obj("web", http, "a", "2026-01-03T00:00:00Z"),
      ],
      virtualKeys: [],
      secrets,
    });
    expect(r.clients.get("b/web")).toEqual({ ok: true, name: "web" });
    expect(r.clients.get("a/web")).toMatchObject({
      ok: false,
      reason: "NameConflict",
    });
    expect(r.config.mcp?.client_configs).toHaveLength(1);
  });
});

describe("render: VirtualKeys", () => {
  it("renders the key as an env reference with its value in the Secret", () => {
    const r = render({
      clients: [],
      virtualKeys: [
        obj("team-a", {
          active: false,
          mcpConfigs: [
            { mcpClientName: "web-search", toolsToExecute: ["search"] },
          ],
          keySecretRef: { name: "vk" },
        }),
      ],
      secrets,
    });
    expect(r.config.governance?.virtual_keys).toEqual([
      {
        name: "team-a",
        value: `env.${virtualKeySecretKey("team-a")}`,
        is_active: false,
        mcp_configs: [
          { mcp_client_name: "web_search", tools_to_execute: ["search"] },
        ],
      },
    ]);
    expect(r.secretData).toEqual({
      [virtualKeySecretKey("team-a")]: "vk-value",
    });
  });

  it.each([
    [
      "its Secret is missing",
      { keySecretRef: { name: "nope" } },
      "SecretNotFound",
    ],
    [
      "its key is empty",
      { keySecretRef: { name: "empty" } },
      "SecretKeyNotFound",
    ],
    ["keySecretRef is missing", {}, "InvalidSpec"],
  ])("is left out when %s", (_label, spec, reason) => {
    const r = render({ clients: [], virtualKeys: [obj("k", spec)], secrets });
    expect(r.virtualKeys.get("ns/k")).toMatchObject({ ok: false, reason });
    expect(r.config.governance?.virtual_keys).toEqual([]);
  });
});

describe("render: the whole config", () => {
  it("keeps the base config and replaces only clients and virtual keys", () => {
    const base = {
      server: { port: 9000 },
      state: { redis_url: "env.REDIS_URL" },
      mcp: {
        client_configs: [
          {
            name: "stale",
            connection_type: "http" as const,
            connection_string: "https://x",
          },
        ],
        tool_manager_config: { max_agent_depth: 3 },
      },
    };
    const r = render({
      clients: [obj("c", http)],
      virtualKeys: [],
      secrets,
      base,
    });
    expect(r.config.server).toEqual({ port: 9000 });
    expect(r.config.state).toEqual({ redis_url: "env.REDIS_URL" });
    expect(r.config.mcp?.tool_manager_config).toEqual({ max_agent_depth: 3 });
    expect(r.config.mcp?.client_configs?.map((c) => c.name)).toEqual(["c"]);
  });

  it("produces the same bytes and checksum whatever the input order", () => {
    const a = obj("a", http);
    const b = obj("b", http);
    const one = render({ clients: [a, b], virtualKeys: [], secrets });
    const two = render({ clients: [b, a], virtualKeys: [], secrets });
    expect(two.configJson).toBe(one.configJson);
    expect(two.checksum).toBe(one.checksum);
  });

  it("changes the checksum when only a secret value changes", () => {
    const spec = {
      ...http,
      authType: "headers",
      headers: { A: { secretKeyRef: { name: "tokens", key: "search" } } },
    };
    const one = render({ clients: [obj("c", spec)], virtualKeys: [], secrets });
    const two = render({
      clients: [obj("c", spec)],
      virtualKeys: [],
      secrets: () => ({ search: "rotated" }),
    });
    expect(two.configJson).toBe(one.configJson);
    expect(two.checksum).not.toBe(one.checksum);
  });

  it("throws when the base config itself is invalid", () => {
    expect(() =>
      render({
        clients: [],
        virtualKeys: [],
        secrets,
        base: { server: { port: -1 } },
      }),
    ).toThrow(/rendered gateway config is invalid: config.server.port/);
  });
});
