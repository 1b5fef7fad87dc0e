/**
 * Code mode end to end (SPEC 10, 9.5): a whole gateway in-process with server-everything as a
 * code-mode client and a direct client, the scripted provider as the model (agent mode), and
 * the MCP SDK client on /mcp.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

import {
  GatewayConfig,
  type GatewayConfigInput,
} from "../src/config/schema.js";
import {
  completion,
  type FakeProvider,
  startFakeProvider,
} from "./fixtures/fake-provider.js";
import {
  type RunningGateway,
  startGatewayApp,
} from "./fixtures/gateway-app.js";
import { everythingStdio } from "./fixtures/servers.js";

type Msg = { role: string; content?: string | null; tool_call_id?: string };
type ChatTool = { function: { name: string } };

const LOOP_SCRIPT = `
sums = []
for i in range(3):
    r = everything.get_sum(a=i, b=10)
    sums.append(r)
echoed = everything.echo(message="done after %d sums" % len(sums))
print("sums:", sums)
result = {"sums": sums, "echo": echoed}
`;

describe("code mode", () => {
  let fake: FakeProvider;
  let gw: RunningGateway;
  let input: GatewayConfigInput;
  const clients: Client[] = [];

  const configWith = (tm: Record<string, unknown>): GatewayConfig =>
    GatewayConfig.parse({
      ...input,
      mcp: {
        ...input.mcp,
        tool_manager_config: { ...input.mcp?.tool_manager_config, ...tm },
      },
    });

  async function mcpClient(
    headers: Record<string, string> = {},
  ): Promise<Client> {
    const client = new Client({ name: "codemode-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.base}/mcp`), {
        requestInit: { headers },
      }),
    );
    clients.push(client);
    return client;
  }

  async function call(
    client: Client,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean; structured: unknown }> {
    const r = (await client.callTool({
      name,
      arguments: args,
    })) as CallToolResult;
    const text = r.content
      .map((c) => (c.type === "text" ? c.text : ""))
      .join("\n");
    return {
      text,
      isError: r.isError === true,
      structured: r.structuredContent,
    };
  }

  async function chat(
    body: Record<string, unknown>,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- wire JSON asserted freely
  ): Promise<{ status: number; json: any }> {
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "fake/fake-model", ...body }),
    });
    return { status: res.status, json: await res.json() };
  }

  beforeAll(async () => {
    fake = await startFakeProvider();
    input = {
      providers: { fake: { base_url: fake.url } },
      mcp: {
        client_configs: [
          everythingStdio("everything", {
            is_code_mode_client: true,
            tools_to_execute: ["echo", "get-sum", "get-structured-content"],
            tools_to_auto_execute: ["echo", "get-sum"],
          }),
          everythingStdio("direct", { tools_to_execute: ["echo"] }),
        ],
        tool_manager_config: { tool_execution_timeout: "20s" },
      },
      governance: {
        virtual_keys: [
          {
            name: "limited",
            value: "vk-limited",
            mcp_configs: [
              { mcp_client_name: "everything", tools_to_execute: ["echo"] },
            ],
          },
        ],
      },
    };
    gw = await startGatewayApp(input);
    await Promise.all([
      gw.runtime.upstream.waitConnected("everything", 30_000),
      gw.runtime.upstream.waitConnected("direct", 30_000),
    ]);
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await gw.runtime.reload(configWith({}));
  });

  afterAll(async () => {
    await gw.close();
    await fake.close();
  });

  it("lets the model list, read and run code that calls two tools in a loop, in agent mode", async () => {
    const base = fake.requests.length;
    fake.push(
      {
        body: completion({
          toolCalls: [{ name: "listToolFiles", arguments: {} }],
        }),
      },
      {
        body: completion({
          toolCalls: [
            {
              name: "readToolFile",
              arguments: { fileName: "servers/everything.pyi" },
            },
          ],
        }),
      },
      {
        body: completion({
          toolCalls: [
            { name: "executeToolCode", arguments: { code: LOOP_SCRIPT } },
          ],
        }),
      },
      { body: completion({ content: "The sums are 10, 11 and 12." }) },
    );
    const { status, json } = await chat({
      messages: [{ role: "user", content: "add some numbers" }],
    });
    expect(status).toBe(200);
    expect(json.choices[0].message.content).toBe("The sums are 10, 11 and 12.");

    const offered = (
      fake.requests[base]!.body as { tools: ChatTool[] }
    ).tools.map((t) => t.function.name);
    expect(offered).toEqual(
      expect.arrayContaining([
        "listToolFiles",
        "readToolFile",
        "getToolDocs",
        "executeToolCode",
        "direct_echo",
      ]),
    );
    expect(offered.some((n) => n.startsWith("everything_"))).toBe(false);

    const toolText = (i: number): string => {
      const messages = (fake.requests[base + i]!.body as { messages: Msg[] })
        .messages;
      return messages.at(-1)?.content ?? "";
    };
    expect(toolText(1)).toBe("servers/\n  everything.pyi");
    expect(toolText(2)).toContain(
      "def get_sum(a: float, b: float) -> Any: ...  # Returns the sum of two numbers (MCP name: get-sum)",
    );
    expect(toolText(2)).toContain(
      "def echo(message: str) -> Any: ...  # Echoes back the input string",
    );
    expect(JSON.parse(toolText(3))).toEqual({
      result: {
        sums: [
          "The sum of 0 and 10 is 10.",
          "The sum of 1 and 10 is 11.",
          "The sum of 2 and 10 is 12.",
        ],
        echo: "Echo: done after 3 sums",
      },
      logs: [
        'sums: ["The sum of 0 and 10 is 10.", "The sum of 1 and 10 is 11.", "The sum of 2 and 10 is 12."]',
      ],
    });
  });

  it("hands a failing script's error back to the model, which can correct itself", async () => {
    const base = fake.requests.length;
    fake.push(
      {
        body: completion({
          toolCalls: [
            {
              name: "executeToolCode",
              arguments: {
                code: 'print("trying")\nresult = Everything.echo(message="x")',
              },
            },
          ],
        }),
      },
      {
        body: completion({
          toolCalls: [
            {
              name: "executeToolCode",
              arguments: { code: 'result = everything.echo(message="x")' },
            },
          ],
        }),
      },
      { body: completion({ content: "fixed" }) },
    );
    const { json } = await chat({
      messages: [{ role: "user", content: "echo x" }],
    });
    expect(json.choices[0].message.content).toBe("fixed");
    const lastTool = (i: number): string =>
      (fake.requests[base + i]!.body as { messages: Msg[] }).messages.at(-1)
        ?.content ?? "";
    expect(lastTool(1)).toContain(
      'undefined server "Everything". Available server keys: everything.',
    );
    expect(lastTool(1)).toContain("Did you mean everything?");
    expect(JSON.parse(lastTool(2))).toEqual({ result: "Echo: x", logs: [] });
  });

  it("returns a script that calls a tool outside tools_to_auto_execute to the caller", async () => {
    const code =
      'result = everything.get_structured_content(location="Chicago")';
    fake.push(
      {
        body: completion({
          toolCalls: [{ name: "listToolFiles", arguments: {} }],
        }),
      },
      {
        body: completion({
          toolCalls: [{ name: "executeToolCode", arguments: { code } }],
        }),
      },
    );
    const { json } = await chat({
      messages: [{ role: "user", content: "weather?" }],
    });
    const calls = json.choices[0].message.tool_calls as {
      function: { name: string; arguments: string };
    }[];
    expect(calls.map((c) => c.function.name)).toEqual(["executeToolCode"]);
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ code });
  });

  it("serves the meta-tools on /mcp instead of the code-mode client's tools", async () => {
    const client = await mcpClient();
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "listToolFiles",
        "readToolFile",
        "getToolDocs",
        "executeToolCode",
        "direct_echo",
      ]),
    );
    expect(names.some((n) => n.startsWith("everything_"))).toBe(false);
    const run = await call(client, "executeToolCode", {
      code: 'r = everything.get_structured_content(location="Chicago")\nresult = r["conditions"]',
    });
    expect(run.isError).toBe(false);
    expect(run.structured).toEqual({ result: expect.any(String), logs: [] });
  });

  it("reads line ranges of a stub file and documents one tool", async () => {
    const client = await mcpClient();
    const whole = (
      await call(client, "readToolFile", { fileName: "servers/Everything.pyi" })
    ).text.split("\n");
    const part = await call(client, "readToolFile", {
      fileName: "servers/everything.pyi",
      startLine: 2,
      endLine: 3,
    });
    expect(part.text).toBe(whole.slice(1, 3).join("\n"));
    const unknown = await call(client, "readToolFile", {
      fileName: "servers/github.pyi",
    });
    expect(unknown).toMatchObject({
      isError: true,
      text: 'unknown file "servers/github.pyi"; available files: servers/everything.pyi. Call listToolFiles to see the tree.',
    });
    const docs = await call(client, "getToolDocs", {
      server: "everything",
      tool: "get-structured-content",
    });
    expect(docs.text).toContain(
      'location: Literal["New York", "Chicago", "Los Angeles"] (required) - Choose city',
    );
    expect(docs.text).toContain(
      "temperature: float (always present) - Temperature in celsius",
    );
    expect(docs.text).toContain(
      'r = everything.get_structured_content(location="New York")',
    );
  });

  it("follows the binding level after a config reload", async () => {
    await gw.runtime.reload(configWith({ code_mode_binding_level: "tool" }));
    const client = await mcpClient();
    expect((await call(client, "listToolFiles", {})).text).toBe(
      "servers/\n  everything/\n    echo.pyi\n    get_structured_content.pyi\n    get_sum.pyi",
    );
    const file = await call(client, "readToolFile", {
      fileName: "servers/everything/get-sum.pyi",
    });
    expect(file.text.split("\n").at(-1)).toBe(
      "def get_sum(a: float, b: float) -> Any: ...  # Returns the sum of two numbers (MCP name: get-sum)",
    );
  });

  it("refuses tools the caller may not use: not in tools_to_execute, excluded by headers, or by the virtual key", async () => {
    const open = await mcpClient();
    const notExecutable = await call(open, "executeToolCode", {
      code: 'print("before")\nresult = everything.get_env()',
    });
    expect(notExecutable.isError).toBe(true);
    expect(notExecutable.text).toContain(
      'Server everything has no tool "get_env" available to you; its tools: echo, get_structured_content, get_sum',
    );
    expect(notExecutable.text).toContain(
      "logs printed before the failure:\nbefore",
    );

    const byHeader = await mcpClient({
      "x-bf-mcp-include-tools": "everything-echo",
    });
    expect(
      (
        await call(byHeader, "executeToolCode", {
          code: "result = everything.get_sum(a=1, b=2)",
        })
      ).text,
    ).toContain("its tools: echo");

    const byKey = await mcpClient({ "x-bf-virtual-key": "vk-limited" });
    expect(
      (
        await call(byKey, "executeToolCode", {
          code: "result = everything.get_sum(a=1, b=2)",
        })
      ).text,
    ).toContain("its tools: echo");
    expect(
      (
        await call(byKey, "executeToolCode", {
          code: 'result = everything.echo(message="hi")',
        })
      ).structured,
    ).toEqual({ result: "Echo: hi", logs: [] });
  });

  it("answers an undefined server with the available server keys", async () => {
    const client = await mcpClient();
    const r = await call(client, "executeToolCode", {
      code: 'result = github.search(query="x")',
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(
      'undefined server "github". Available server keys: everything. Use one of them as the object name',
    );
  });

  it("stops a script that loops forever while the gateway keeps answering", async () => {
    await gw.runtime.reload(configWith({ tool_execution_timeout: "1s" }));
    const client = await mcpClient();
    const order: string[] = [];
    const looping = call(client, "executeToolCode", {
      code: 'print("looping")\nwhile True:\n    pass',
    }).then((r) => {
      order.push("loop");
      return r;
    });
    const health = await fetch(`${gw.base}/health`);
    const listed = await client.listTools();
    order.push("others");
    expect(health.status).toBe(200);
    expect(listed.tools.length).toBeGreaterThan(0);
    const r = await looping;
    expect(order).toEqual(["others", "loop"]);
    expect(r.isError).toBe(true);
    expect(r.text).toContain("timeout");
    expect(r.text).toContain("logs printed before the failure:\nlooping");
    const metrics = await (await fetch(`${gw.base}/metrics`)).text();
    expect(metrics).toMatch(
      /code_mode_executions_total\{[^}]*status="timeout"[^}]*\} [1-9]/,
    );
    expect(metrics).toMatch(
      /code_mode_executions_total\{[^}]*status="success"[^}]*\} [1-9]/,
    );
  });

  it("offers no meta-tool to a caller without a code-mode client", async () => {
    const client = await mcpClient({ "x-bf-mcp-include-clients": "direct" });
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      "direct_echo",
    ]);
  });
});
