import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { Operator } from "../src/operator.js";
import { CHECKSUM_ANNOTATION } from "../src/render/children.js";
import { headerSecretKey, virtualKeySecretKey } from "../src/render/names.js";
import { MemoryStatusSource } from "../src/status/status-source.js";
import { ApiServerDouble } from "./api-server-double.js";
import {
  CLIENTS,
  condition,
  CONFIGMAPS,
  eventually,
  KEYS,
  mcpClient,
  renderedConfig,
  renderedSecret,
  secret,
  SECRETS,
  startOperator,
  TARGET,
  virtualKey,
} from "./helpers.js";

const http = (url: string, extra: Record<string, unknown> = {}) => ({
  connectionType: "http",
  connectionString: url,
  toolsToExecute: ["*"],
  ...extra,
});

describe("operator against the API server double", () => {
  let api: ApiServerDouble;
  let status: MemoryStatusSource;
  const running: Operator[] = [];

  beforeEach(async () => {
    api = new ApiServerDouble();
    await api.start();
    status = new MemoryStatusSource();
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((o) => o.stop()));
    await api.stop();
  });

  const start = (user = "operator") => {
    const op = startOperator(api, status, user);
    running.push(op);
    return op;
  };

  it("renders an applied MCPClient into the ConfigMap and its header secret into the Secret", async () => {
    api.apply(SECRETS, secret("search-token", { token: "Bearer s3cret" }));
    api.apply(
      CLIENTS,
      mcpClient(
        "web-search",
        http("https://search.example/mcp", {
          authType: "headers",
          headers: {
            Authorization: {
              secretKeyRef: { name: "search-token", key: "token" },
            },
            "X-Team": { value: "tools" },
          },
        }),
      ),
    );
    start();
    const cfg = await eventually(() => {
      const c = renderedConfig(api);
      expect(c.mcp.client_configs).toHaveLength(1);
      return c;
    });
    const client = cfg.mcp.client_configs[0];
    expect(client?.name).toBe("web_search");
    expect(client?.headers).toEqual({
      Authorization: `env.${headerSecretKey("web_search", 0)}`,
      "X-Team": "tools",
    });
    expect(renderedSecret(api)).toEqual({
      [headerSecretKey("web_search", 0)]: "Bearer s3cret",
    });
    const cm = api.get(`${CONFIGMAPS}/${TARGET.configMap}`);
    const s = api.get(`${SECRETS}/${TARGET.secret}`);
    const sum = (cm?.metadata.annotations as Record<string, string>)[
      CHECKSUM_ANNOTATION
    ];
    expect(sum).toMatch(/^[0-9a-f]{64}$/);
    expect(
      (s?.metadata.annotations as Record<string, string>)[CHECKSUM_ANNOTATION],
    ).toBe(sum);
  });

  it("writes nothing when the operator reconciles unchanged input again", async () => {
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    api.apply(
      KEYS,
      virtualKey("team-a", {
        mcpConfigs: [{ mcpClientName: "alpha", toolsToExecute: ["*"] }],
        keySecretRef: { name: "team-a-key" },
      }),
    );
    const op = start();
    await eventually(() =>
      expect(condition(api.get(`${KEYS}/team-a`), "Ready")?.status).toBe(
        "True",
      ),
    );
    await eventually(() =>
      expect(condition(api.get(`${CLIENTS}/alpha`), "Ready")?.reason).toBe(
        "NoReports",
      ),
    );
    await op.controller?.idle();
    const before = api
      .writes({ user: "operator" })
      .filter((w) => !w.path.includes("/leases")).length;
    // Level-based: re-run every key (and let several status refreshes pass) on the same input.
    const c = op.controller;
    c?.queue.add(`Config/${TARGET.namespace}/${TARGET.configMap}`);
    c?.queue.add("MCPClient/tools/alpha");
    c?.queue.add("VirtualKey/tools/team-a");
    await c?.idle();
    await new Promise((r) => setTimeout(r, 300));
    await c?.idle();
    expect(
      api
        .writes({ user: "operator" })
        .filter((w) => !w.path.includes("/leases")).length,
    ).toBe(before);
  });

  it("follows a spec change and records the observed generation", async () => {
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    start();
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs[0]?.connection_string).toBe(
        "https://a.example/mcp",
      ),
    );
    api.apply(
      CLIENTS,
      mcpClient(
        "alpha",
        http("https://b.example/mcp", {
          toolsToExecute: ["search"],
          toolsToAutoExecute: ["search"],
        }),
      ),
    );
    await eventually(() => {
      const c = renderedConfig(api).mcp.client_configs[0];
      expect(c?.connection_string).toBe("https://b.example/mcp");
      expect(c?.tools_to_auto_execute).toEqual(["search"]);
    });
    await eventually(() =>
      expect(
        (api.get(`${CLIENTS}/alpha`)?.status as { observedGeneration?: number })
          .observedGeneration,
      ).toBe(2),
    );
  });

  it("marks a resource with a missing Secret not ready and keeps serving the others", async () => {
    api.apply(CLIENTS, mcpClient("good", http("https://good.example/mcp")));
    api.apply(
      CLIENTS,
      mcpClient(
        "needs-secret",
        http("https://x.example/mcp", {
          authType: "headers",
          headers: {
            Authorization: { secretKeyRef: { name: "missing", key: "token" } },
          },
        }),
      ),
    );
    api.apply(CLIENTS, mcpClient("9lives", http("https://nine.example/mcp")));
    api.apply(
      CLIENTS,
      mcpClient("dotted.name", http("https://dot.example/mcp")),
    );
    start();
    await eventually(() => {
      const ready = condition(api.get(`${CLIENTS}/needs-secret`), "Ready");
      expect(ready).toMatchObject({
        status: "False",
        reason: "SecretNotFound",
      });
      expect(ready?.message).toContain('Secret "missing" not found');
    });
    await eventually(() =>
      expect(condition(api.get(`${CLIENTS}/9lives`), "Ready")).toMatchObject({
        status: "False",
        reason: "InvalidName",
      }),
    );
    await eventually(() =>
      expect(
        condition(api.get(`${CLIENTS}/dotted.name`), "Ready"),
      ).toMatchObject({
        status: "False",
        reason: "InvalidName",
      }),
    );
    expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual([
      "good",
    ]);
    // Creating the Secret later brings the client in, without touching the resource.
    api.apply(SECRETS, secret("missing", { token: "t0k" }));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["good", "needs_secret"],
      ),
    );
    await eventually(() =>
      expect(
        condition(api.get(`${CLIENTS}/needs-secret`), "Ready")?.reason,
      ).not.toBe("SecretNotFound"),
    );
  });

  it("removes a deleted resource from the config and its values from the Secret", async () => {
    api.apply(SECRETS, secret("tok", { t: "v" }));
    api.apply(
      CLIENTS,
      mcpClient(
        "alpha",
        http("https://a.example/mcp", {
          authType: "headers",
          headers: { A: { secretKeyRef: { name: "tok", key: "t" } } },
        }),
      ),
    );
    api.apply(CLIENTS, mcpClient("beta", http("https://b.example/mcp")));
    start();
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(2),
    );
    api.remove(`${CLIENTS}/alpha`);
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["beta"],
      ),
    );
    await eventually(() => expect(renderedSecret(api)).toEqual({}));
  });

  it("reports gateway status: connected pods, tool count and the OAuth authorize URL", async () => {
    api.apply(SECRETS, secret("oauth", { secret: "cs" }));
    api.apply(
      CLIENTS,
      mcpClient(
        "docs",
        http("https://docs.example/mcp", {
          authType: "oauth",
          oauthConfig: {
            clientId: "abc",
            serverUrl: "https://docs.example",
            clientSecretRef: { name: "oauth", key: "secret" },
            scopes: ["read"],
          },
        }),
      ),
    );
    start();
    await eventually(() =>
      expect(condition(api.get(`${CLIENTS}/docs`), "Connected")?.reason).toBe(
        "NoReports",
      ),
    );
    const now = new Date().toISOString();
    status.setOAuth("docs", {
      status: "pending",
      authorizeUrl: "https://auth.example/authorize?x=1",
    });
    status.report("docs", {
      pod: "gw-0",
      state: "connecting",
      toolCount: 0,
      tools: [],
      updatedAt: now,
    });
    await eventually(() => {
      const o = api.get(`${CLIENTS}/docs`);
      expect((o?.status as { authorizeUrl?: string }).authorizeUrl).toBe(
        "https://auth.example/authorize?x=1",
      );
      expect(condition(o, "Authorized")).toMatchObject({
        status: "False",
        reason: "AuthorizationPending",
      });
      expect(condition(o, "Ready")?.status).toBe("False");
    });
    const readyFalseAt = condition(
      api.get(`${CLIENTS}/docs`),
      "Ready",
    )?.lastTransitionTime;
    status.setOAuth("docs", { status: "authorized" });
    status.report("docs", {
      pod: "gw-0",
      state: "connected",
      toolCount: 2,
      tools: ["search", "fetch"],
      updatedAt: new Date().toISOString(),
    });
    status.report("docs", {
      pod: "gw-1",
      state: "connected",
      toolCount: 2,
      tools: ["search", "fetch"],
      updatedAt: new Date().toISOString(),
    });
    await eventually(() => {
      const o = api.get(`${CLIENTS}/docs`);
      expect(o?.status).toMatchObject({
        state: "connected",
        toolCount: 2,
        tools: ["fetch", "search"],
        clientName: "docs",
      });
      expect(
        (o?.status as { authorizeUrl?: string }).authorizeUrl,
      ).toBeUndefined();
      expect(condition(o, "Connected")).toMatchObject({
        status: "True",
        message: "2/2 gateway pods connected",
      });
      expect(condition(o, "Ready")?.status).toBe("True");
    });
    expect(readyFalseAt).toBeDefined();
  });

  it("creates a VirtualKey's Secret with a random key and never overwrites an existing one", async () => {
    api.apply(SECRETS, secret("kept", { key: "my-own-key" }));
    api.apply(
      KEYS,
      virtualKey("generated", { keySecretRef: { name: "generated-key" } }),
    );
    api.apply(
      KEYS,
      virtualKey("kept", { active: false, keySecretRef: { name: "kept" } }),
    );
    start();
    await eventually(() =>
      expect(
        renderedConfig(api).governance.virtual_keys.map((k) => k.name),
      ).toEqual(["generated", "kept"]),
    );
    const made = api.get(`${SECRETS}/generated-key`);
    const value = Buffer.from(
      (made?.data as Record<string, string>).key ?? "",
      "base64",
    ).toString();
    expect(value).toMatch(/^tgvk_[A-Za-z0-9_-]{43}$/);
    expect(
      (made?.metadata.ownerReferences as { kind: string }[])[0]?.kind,
    ).toBe("VirtualKey");
    expect(renderedSecret(api)[virtualKeySecretKey("generated")]).toBe(value);
    expect(renderedSecret(api)[virtualKeySecretKey("kept")]).toBe("my-own-key");
    expect(api.writes({ pathIncludes: "/secrets/kept" })).toEqual([]);
    expect(
      renderedConfig(api).governance.virtual_keys.find((k) => k.name === "kept")
        ?.is_active,
    ).toBe(false);
    await eventually(() =>
      expect(
        (api.get(`${KEYS}/generated`)?.status as { secretName?: string })
          .secretName,
      ).toBe("generated-key"),
    );
  });

  it("retries a status write that hits 409 Conflict until it lands", async () => {
    api.conflictOnce.push(`${CLIENTS}/alpha/status`, `${CLIENTS}/alpha/status`);
    api.apply(CLIENTS, mcpClient("alpha", http("https://a.example/mcp")));
    start();
    await eventually(() =>
      expect(condition(api.get(`${CLIENTS}/alpha`), "Ready")?.reason).toBe(
        "NoReports",
      ),
    );
    expect(api.conflictOnce).toEqual([]);
    expect(
      api
        .writes({ pathIncludes: `${CLIENTS}/alpha/status` })
        .map((w) => w.status),
    ).toEqual([409, 409, 200]);
  });

  it("serves several namespaces and gives a client name claimed twice to the older resource", async () => {
    const other = "/apis/toolgate.dev/v1alpha1/namespaces/other/mcpclients";
    // "other" sorts first, so only the creation time can make "tools" win.
    api.clock = () => new Date("2026-01-01T00:00:00Z");
    api.apply(CLIENTS, mcpClient("shared", http("https://first.example/mcp")));
    api.clock = () => new Date("2026-01-01T00:01:00Z");
    api.apply(other, mcpClient("shared", http("https://second.example/mcp")));
    api.apply(other, mcpClient("only-here", http("https://third.example/mcp")));
    running.push(
      startOperator(api, status, "operator", {
        namespaces: ["tools", "other"],
      }),
    );
    await eventually(() =>
      expect(
        renderedConfig(api).mcp.client_configs.map((c) => [
          c.name,
          c.connection_string,
        ]),
      ).toEqual([
        ["only_here", "https://third.example/mcp"],
        ["shared", "https://first.example/mcp"],
      ]),
    );
    await eventually(() =>
      expect(condition(api.get(`${other}/shared`), "Ready")).toMatchObject({
        status: "False",
        reason: "NameConflict",
      }),
    );
  });

  it("writes new secret values before the config that uses them, and prunes old ones after it", async () => {
    api.apply(SECRETS, secret("tok", { t: "v" }));
    api.apply(CLIENTS, mcpClient("beta", http("https://b.example/mcp")));
    start();
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(1),
    );
    const gateway = (w: { path: string }) =>
      w.path.endsWith(`/configmaps/${TARGET.configMap}`) ||
      w.path.endsWith(`/secrets/${TARGET.secret}`);
    const kinds = (from: number) =>
      api
        .writes({ user: "operator" })
        .slice(from)
        .filter(gateway)
        .map((w) => (w.path.includes("/configmaps/") ? "configmap" : "secret"));
    let mark = api.writes({ user: "operator" }).length;
    const withHeader = http("https://a.example/mcp", {
      authType: "headers",
      headers: { A: { secretKeyRef: { name: "tok", key: "t" } } },
    });
    api.apply(CLIENTS, mcpClient("alpha", withHeader));
    await eventually(() =>
      expect(renderedConfig(api).mcp.client_configs).toHaveLength(2),
    );
    expect(kinds(mark)).toEqual(["secret", "configmap"]);
    mark = api.writes({ user: "operator" }).length;
    api.remove(`${CLIENTS}/alpha`);
    await eventually(() => expect(renderedSecret(api)).toEqual({}));
    expect(kinds(mark)).toEqual(["configmap", "secret"]);
  });
});
