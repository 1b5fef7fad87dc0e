/**
 * /mcp end to end: a real upstream (server-everything over stdio) behind the gateway, driven by
 * the MCP SDK client, the MCP Inspector CLI and raw HTTP.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Fastify, { type FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";

import { defaultConfig } from "../src/config/defaults.js";
import {
  GatewayConfig as ConfigSchema,
  type GatewayConfig,
} from "../src/config/schema.js";
import { createGovernance } from "../src/governance/index.js";
import { mcpPlugin, toolHeaderFilter } from "../src/mcp/index.js";
import { parseToolHeaders } from "../src/registry/index.js";
import { createUpstreamManager } from "../src/upstream/index.js";

const run = promisify(execFile);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON from the wire; the assertions check its shape
type Json = any;

function configWith(over: Record<string, unknown>): GatewayConfig {
  const base = defaultConfig();
  return ConfigSchema.parse({
    mcp: { client_configs: base.mcp.client_configs },
    ...over,
  });
}

const KEYS = {
  governance: {
    virtual_keys: [
      {
        id: "vk-echo",
        name: "echo_only",
        value: "sk-echo",
        mcp_configs: [
          { mcp_client_name: "everything", tools_to_execute: ["echo"] },
        ],
      },
      {
        id: "vk-all",
        name: "all",
        value: "sk-all",
        mcp_configs: [
          { mcp_client_name: "everything", tools_to_execute: ["*"] },
        ],
      },
      {
        id: "vk-off",
        name: "off",
        value: "sk-off",
        is_active: false,
        mcp_configs: [],
      },
    ],
  },
};

interface Gateway {
  app: Pick<FastifyInstance, "close" | "mcpStreams">;
  url: string;
  config: GatewayConfig;
  upstream: ReturnType<typeof createUpstreamManager>;
}

async function startGateway(
  config: GatewayConfig,
  keepAliveMs = 15_000,
): Promise<Gateway> {
  const logger = pino({ level: "silent" });
  const upstream = createUpstreamManager({ logger });
  await upstream.apply(config);
  await upstream.waitConnected("everything", 30_000);
  const governance = createGovernance(config);
  const app = Fastify({ loggerInstance: logger });
  await app.register(mcpPlugin, {
    registry: upstream.registry,
    governance: () => governance,
    headerFilter: toolHeaderFilter((h) =>
      parseToolHeaders(h, upstream.registry.clientNames()),
    ),
    allowedOrigins: () => config.client.allowed_origins,
    bodyLimit: config.server.body_limit_mcp,
    keepAliveMs,
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url: `${address}/mcp`, config, upstream };
}

async function stopGateway(g: Gateway | undefined): Promise<void> {
  if (!g) return;
  await g.app.close();
  await g.upstream.close();
}

async function post(
  url: string,
  body: string | object,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Json; text: string }> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

const echoCall = (id: number, message = "hi") => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "everything_echo", arguments: { message } },
});

/** Reads SSE frames from a GET /mcp stream until `until` returns true for the collected data lines. */
async function readStream(
  res: Response,
  until: (events: string[]) => boolean,
  timeoutMs = 10_000,
): Promise<string[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: string[] = [];
  let buffer = "";
  const deadline = Date.now() + timeoutMs;
  const takeFrames = (): void => {
    let idx;
    while ((idx = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, idx);
      buffer = buffer.slice(idx + 2);
      events.push(
        ...frame
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6)),
      );
    }
  };
  while (!until(events) && Date.now() < deadline) {
    const chunk = await Promise.race([
      reader.read(),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 250)),
    ]);
    if (!chunk || chunk.done) continue;
    buffer += decoder.decode(chunk.value, { stream: true });
    takeFrames();
  }
  await reader.cancel();
  return events;
}

describe("/mcp with the global tool set", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway(configWith({}));
  });
  afterAll(() => stopGateway(g));

  test("the MCP SDK client initializes, lists the prefixed tools and calls everything_echo", async () => {
    const client = new Client({ name: "sdk-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(g.url)));
    expect(client.getServerCapabilities()?.tools).toEqual({
      listChanged: true,
    });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("everything_echo");
    expect(names.every((n) => n.startsWith("everything_"))).toBe(true);
    const result = await client.callTool({
      name: "everything_echo",
      arguments: { message: "through the gateway" },
    });
    expect(result.content).toEqual([
      { type: "text", text: "Echo: through the gateway" },
    ]);
    await expect(
      client.callTool({ name: "everything_nope", arguments: {} }),
    ).rejects.toThrow(/Unknown tool: everything_nope/);
    await client.close();
  });

  test("the MCP Inspector CLI lists and calls tools over streamable HTTP", async () => {
    const require = createRequire(import.meta.url);
    const cli = join(
      dirname(
        require.resolve("@modelcontextprotocol/inspector-cli/package.json"),
      ),
      "build",
      "index.js",
    );
    const list = await run(
      process.execPath,
      [cli, g.url, "--transport", "http", "--method", "tools/list"],
      { timeout: 60_000 },
    );
    expect(
      JSON.parse(list.stdout).tools.map((t: { name: string }) => t.name),
    ).toContain("everything_echo");
    const call = await run(
      process.execPath,
      [
        cli,
        g.url,
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "everything_echo",
        "--tool-arg",
        "message=inspector",
      ],
      { timeout: 60_000 },
    );
    expect(JSON.parse(call.stdout).content).toEqual([
      { type: "text", text: "Echo: inspector" },
    ]);
  });

  test("initialize negotiates the requested protocol version and issues a signed session id", async () => {
    const res = await fetch(g.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-03-26",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    const body = (await res.json()) as Json;
    expect(body.result.protocolVersion).toBe("2025-03-26");
    expect(body.result.serverInfo.name).toBe("toolgate");
    const session = res.headers.get("mcp-session-id");
    expect(session).toMatch(/^v1\./);
    expect(
      (
        await post(
          g.url,
          { jsonrpc: "2.0", id: 2, method: "ping" },
          { "mcp-session-id": session! },
        )
      ).json,
    ).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
    const forged = `${session!.slice(0, -3)}abc`;
    const refused = await post(
      g.url,
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { "mcp-session-id": forged },
    );
    expect(refused.status).toBe(404);
    expect(refused.json.error.code).toBe(-32004);
  });

  test("an unsupported protocol version is answered with the latest one", async () => {
    const r = await post(g.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "1999-01-01",
        capabilities: {},
        clientInfo: { name: "x", version: "1" },
      },
    });
    expect(r.json.result.protocolVersion).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(r.json.result.protocolVersion).not.toBe("1999-01-01");
  });

  test.each([
    [
      "truncated JSON",
      '{"jsonrpc":"2.0","id":1,"method":"tools/li',
      400,
      null,
      -32700,
    ],
    ["a body that is not JSON at all", "hello", 400, null, -32700],
    [
      "a batch array",
      JSON.stringify([echoCall(1), echoCall(2)]),
      400,
      null,
      -32600,
    ],
    [
      "a wrong jsonrpc version",
      JSON.stringify({ jsonrpc: "1.0", id: 5, method: "ping" }),
      200,
      5,
      -32600,
    ],
    [
      "params of the wrong type",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: "x",
      }),
      200,
      6,
      -32600,
    ],
    [
      "an unknown method",
      JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/list" }),
      200,
      7,
      -32601,
    ],
    [
      "a notification method with an id",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "notifications/initialized",
      }),
      200,
      8,
      -32600,
    ],
    [
      "a tools/call without a name",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: {},
      }),
      200,
      9,
      -32602,
    ],
    [
      "arguments that are not an object",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 10,
        method: "tools/call",
        params: { name: "everything_echo", arguments: [1] },
      }),
      200,
      10,
      -32602,
    ],
    [
      "an unknown tool",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 11,
        method: "tools/call",
        params: { name: "nope_tool", arguments: {} },
      }),
      200,
      11,
      -32602,
    ],
    [
      "deep nesting",
      `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`,
      400,
      null,
      -32600,
    ],
    [
      "a body over the size limit",
      JSON.stringify({
        jsonrpc: "2.0",
        id: 13,
        method: "ping",
        params: { pad: "x".repeat(5 * 1024 * 1024) },
      }),
      413,
      null,
      -32005,
    ],
  ])(
    "answers %s with the specified error, and a valid call right after still works",
    async (_what, body, status, id, code) => {
      const r = await post(g.url, body);
      expect(r.status).toBe(status);
      expect(r.json).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
      expect(typeof r.json.error.message).toBe("string");
      const ok = await post(g.url, echoCall(99, "still up"));
      expect(ok.json.result.content[0].text).toBe("Echo: still up");
    },
  );

  test("a notification gets 202 and no body", async () => {
    const r = await post(g.url, {
      jsonrpc: "2.0",
      method: "notifications/initialized",
    });
    expect(r.status).toBe(202);
    expect(r.text).toBe("");
  });

  test("a tool's own failure is a tool result with isError, not a JSON-RPC error", async () => {
    const tools = (
      await post(g.url, { jsonrpc: "2.0", id: 1, method: "tools/list" })
    ).json.result.tools as { name: string }[];
    expect(tools.length).toBeGreaterThan(3);
    // Missing required argument: the upstream answers with a tool error that passes through unchanged.
    const r = await post(g.url, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "everything_echo", arguments: {} },
    });
    expect(r.status).toBe(200);
    expect(r.json.error).toBeUndefined();
    expect(r.json.result.isError).toBe(true);
  });

  test("x-bf-mcp include headers narrow tools/list", async () => {
    const r = await post(
      g.url,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "x-bf-mcp-include-tools": "everything-echo" },
    );
    expect(r.json.result.tools.map((t: { name: string }) => t.name)).toEqual([
      "everything_echo",
    ]);
  });

  test("an Origin that is not allowed gets 403; a loopback Origin passes", async () => {
    const bad = await post(g.url, echoCall(1), {
      origin: "https://evil.example",
    });
    expect(bad.status).toBe(403);
    expect(bad.json.error.code).toBe(-32003);
    const good = await post(g.url, echoCall(2), {
      origin: "http://localhost:6274",
    });
    expect(good.status).toBe(200);
  });

  test("GET /mcp opens a stream whose first message is connection/opened", async () => {
    const res = await fetch(g.url, {
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = await readStream(res, (e) => e.length >= 1);
    expect(JSON.parse(events[0]!)).toEqual({
      jsonrpc: "2.0",
      method: "connection/opened",
      params: { server: "toolgate" },
    });
  });

  test("GET /mcp without Accept: text/event-stream is refused with 406", async () => {
    const res = await fetch(g.url, { headers: { accept: "application/json" } });
    expect(res.status).toBe(406);
  });

  test("1,000 streams that connect and disconnect leave no listener behind", async () => {
    const count = (): number => g.app.mcpStreams.count();
    for (let batch = 0; batch < 10; batch++) {
      const controllers = Array.from(
        { length: 100 },
        () => new AbortController(),
      );
      const responses = await Promise.all(
        controllers.map((c) =>
          fetch(g.url, {
            headers: { accept: "text/event-stream" },
            signal: c.signal,
          }),
        ),
      );
      expect(responses.every((r) => r.status === 200)).toBe(true);
      expect(count()).toBeGreaterThanOrEqual(100);
      for (const c of controllers) c.abort();
      await expect.poll(count, { timeout: 10_000 }).toBe(0);
    }
  });
});

describe("/mcp with virtual keys", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway(configWith(KEYS));
  });
  afterAll(() => stopGateway(g));

  const list = async (headers: Record<string, string>) =>
    post(g.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);

  test.each([
    ["x-bf-virtual-key", { "x-bf-virtual-key": "sk-echo" }],
    ["X-Api-Key", { "x-api-key": "sk-echo" }],
    ["Authorization: Bearer", { authorization: "Bearer sk-echo" }],
  ])(
    "a key limited to one tool sees only that tool (%s)",
    async (_h, headers) => {
      const r = await list(headers);
      expect(r.json.result.tools.map((t: { name: string }) => t.name)).toEqual([
        "everything_echo",
      ]);
      const call = await post(g.url, echoCall(2, "vk"), headers);
      expect(call.json.result.content[0].text).toBe("Echo: vk");
    },
  );

  test("a tool outside the key's allowance is refused at call time", async () => {
    const r = await post(
      g.url,
      {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "everything_get-sum", arguments: { a: 1, b: 2 } },
      },
      { "x-api-key": "sk-echo" },
    );
    expect(r.json.error.code).toBe(-32602);
    expect(r.json.error.message).toContain("everything_get-sum");
    const all = await post(
      g.url,
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { "x-api-key": "sk-all" },
    );
    expect(all.json.result.tools.length).toBeGreaterThan(1);
  });

  test.each([
    ["an unknown key", { "x-api-key": "sk-unknown" }],
    ["an inactive key", { "x-api-key": "sk-off" }],
  ])(
    "%s gets 401 with a JSON-RPC error body, never the global tools",
    async (_w, headers) => {
      const r = await list(headers);
      expect(r.status).toBe(401);
      expect(r.json).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001 },
      });
      expect(r.json.result).toBeUndefined();
    },
  );

  test("without a key and without enforcement the global tool set is served", async () => {
    const r = await list({});
    expect(r.json.result.tools.length).toBeGreaterThan(1);
  });

  test("a session bound to one key is refused with another key", async () => {
    const init = await fetch(g.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "sk-echo" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "x", version: "1" },
        },
      }),
    });
    const session = init.headers.get("mcp-session-id")!;
    const same = await post(
      g.url,
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { "x-api-key": "sk-echo", "mcp-session-id": session },
    );
    expect(same.status).toBe(200);
    const other = await post(
      g.url,
      { jsonrpc: "2.0", id: 3, method: "ping" },
      { "x-api-key": "sk-all", "mcp-session-id": session },
    );
    expect(other.status).toBe(404);
  });

  test("SSE streams are filtered per key: a change outside the key's tools notifies only the global stream", async () => {
    const keyed = await fetch(g.url, {
      headers: { accept: "text/event-stream", "x-api-key": "sk-echo" },
    });
    const global = await fetch(g.url, {
      headers: { accept: "text/event-stream" },
    });
    // Narrow the client's tools_to_execute to echo + get-sum: the global set changes, echo_only's does not.
    const narrowed = ConfigSchema.parse({
      ...KEYS,
      mcp: {
        client_configs: [
          {
            ...g.config.mcp.client_configs[0],
            tools_to_execute: ["echo", "get-sum"],
          },
        ],
      },
    });
    await g.upstream.apply(narrowed);
    const globalEvents = await readStream(global, (e) =>
      e.some((x) => x.includes("list_changed")),
    );
    const keyedEvents = await readStream(keyed, () => false, 1500);
    expect(
      globalEvents.some(
        (e) => JSON.parse(e).method === "notifications/tools/list_changed",
      ),
    ).toBe(true);
    expect(keyedEvents.map((e) => JSON.parse(e).method)).toEqual([
      "connection/opened",
    ]);
    await g.upstream.apply(g.config);
  });
});

describe("/mcp with enforce_governance_header", () => {
  let g: Gateway;
  beforeAll(async () => {
    g = await startGateway(
      configWith({ ...KEYS, client: { enforce_governance_header: true } }),
    );
  });
  afterAll(() => stopGateway(g));

  test("a request without a key gets 401; with a valid key it is served", async () => {
    const none = await post(g.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
    });
    expect(none.status).toBe(401);
    expect(none.json.error.message).toMatch(/virtual key is required/);
    const sse = await fetch(g.url, {
      headers: { accept: "text/event-stream" },
    });
    expect(sse.status).toBe(401);
    const ok = await post(
      g.url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "x-bf-virtual-key": "sk-all" },
    );
    expect(ok.status).toBe(200);
  });
});
