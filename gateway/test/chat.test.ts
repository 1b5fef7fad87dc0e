/**
 * /v1/chat/completions and /v1/responses through Toolgate, called with the official openai
 * client, against the scripted provider and real MCP servers (server-everything over stdio).
 */
import OpenAI from "openai";
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  vi,
} from "vitest";

import { functionName } from "../src/chat/index.js";
import type { GatewayConfigInput } from "../src/config/schema.js";
import { GatewayConfig } from "../src/config/schema.js";
import { createUpstreamManager } from "../src/upstream/index.js";
import type { ChatApp } from "./fixtures/chat-app.js";
import { startChatApp } from "./fixtures/chat-app.js";
import type { FakeProvider } from "./fixtures/fake-provider.js";
import {
  completion,
  completionChunks,
  gate,
  response,
  startFakeProvider,
} from "./fixtures/fake-provider.js";
import { everythingStdio } from "./fixtures/servers.js";
import { silentLogger } from "./fixtures/upstream-harness.js";

const LONG_CLIENT = `long_${"l".repeat(90)}`;
const LONG_TOOL = `${LONG_CLIENT}_echo`;

describe("chat completions and responses through Toolgate", () => {
  let fake: FakeProvider;
  let tg: ChatApp;
  let vkApp: ChatApp;
  const manager = createUpstreamManager({ logger: silentLogger() });
  let input: GatewayConfigInput;

  beforeAll(async () => {
    fake = await startFakeProvider();
    input = {
      providers: {
        fake: { base_url: fake.url, api_key: "env.FAKE_PROVIDER_KEY" },
        other: { base_url: "http://127.0.0.1:9/v1" },
      },
      mcp: {
        client_configs: [
          everythingStdio("everything", {
            tools_to_execute: ["echo", "get-sum"],
          }),
          everythingStdio(LONG_CLIENT, { tools_to_execute: ["echo"] }),
        ],
      },
    };
    await manager.apply(GatewayConfig.parse(input));
    await Promise.all([
      manager.waitConnected("everything", 20_000),
      manager.waitConnected(LONG_CLIENT, 20_000),
    ]);
    const secrets = { env: { FAKE_PROVIDER_KEY: "sk-provider" } };
    tg = await startChatApp(input, manager.registry, {
      secrets,
      customLabels: (h) => ({
        team:
          typeof h["x-bf-prom-team"] === "string" ? h["x-bf-prom-team"] : "",
      }),
    });
    vkApp = await startChatApp(
      {
        ...input,
        governance: {
          virtual_keys: [
            {
              id: "vk1",
              name: "team-a",
              value: "vk-secret-a",
              mcp_configs: [
                {
                  mcp_client_name: "everything",
                  tools_to_execute: ["get-sum"],
                },
              ],
            },
          ],
        },
      },
      manager.registry,
      { secrets },
    );
  });

  afterAll(async () => {
    await tg.close();
    await vkApp.close();
    await manager.close();
    await fake.close();
  });

  let base = 0;
  beforeEach(() => {
    base = fake.requests.length;
  });

  const toolNames = (body: {
    tools?: { function: { name: string } }[];
  }): string[] => (body.tools ?? []).map((t) => t.function.name);

  it("answers a plain chat completion through the provider named in the model, with the provider's key", async () => {
    fake.push({
      body: completion({
        content: "hello there",
        usage: { prompt: 7, completion: 3 },
      }),
    });
    const res = await tg
      .openai({ "x-bf-prom-team": "blue" })
      .chat.completions.create({
        model: "fake/gpt-test",
        messages: [{ role: "user", content: "hi" }],
        temperature: 0.25,
        user: "u-1",
      });
    expect(res.choices[0]?.message.content).toBe("hello there");
    const got = fake.requests[base]!;
    expect(got.path).toBe("/v1/chat/completions");
    expect(got.body.model).toBe("gpt-test");
    expect(got.body.temperature).toBe(0.25);
    expect(got.body.user).toBe("u-1");
    expect(got.headers.authorization).toBe("Bearer sk-provider");
    await vi.waitFor(() => expect(tg.recorder.calls.length).toBeGreaterThan(0));
    const rec = tg.recorder.calls.at(-1)!;
    expect(rec).toMatchObject({
      success: true,
      inputTokens: 7,
      outputTokens: 3,
      custom: { team: "blue" },
    });
    expect(rec.labels).toMatchObject({
      provider: "fake",
      model: "gpt-test",
      method: "chat",
    });
  });

  it("appends the caller's allowed MCP tools after its own, never replacing a caller tool of the same name", async () => {
    fake.push({ body: completion({ content: "ok" }) });
    await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          function: {
            name: "my_tool",
            parameters: { type: "object", properties: {} },
          },
        },
        {
          type: "function",
          function: {
            name: "everything_echo",
            description: "the caller's echo",
            parameters: { type: "object", properties: {} },
          },
        },
      ],
    });
    const body = fake.requests[base]!.body;
    expect(toolNames(body)).toEqual([
      "my_tool",
      "everything_echo",
      "everything_get-sum",
      functionName(LONG_TOOL),
    ]);
    expect(body.tools[1].function.description).toBe("the caller's echo");
    expect(body.tools[2].function.parameters.properties).toHaveProperty("a");
  });

  it.each([
    [
      { "x-bf-mcp-include-clients": "everything" },
      ["everything_echo", "everything_get-sum"],
    ],
    [{ "x-bf-mcp-exclude-clients": "everything" }, [functionName(LONG_TOOL)]],
    [
      { "x-bf-mcp-include-tools": "everything-get-sum" },
      ["everything_get-sum"],
    ],
    [
      {
        "x-bf-mcp-include-clients": "everything",
        "x-bf-mcp-exclude-tools": "everything-echo",
      },
      ["everything_get-sum"],
    ],
    [{ "x-bf-mcp-exclude-tools": "everything-*" }, [functionName(LONG_TOOL)]],
  ])(
    "filters the offered tools by the headers %o",
    async (headers, expected) => {
      fake.push({ body: completion({ content: "ok" }) });
      await tg.openai(headers).chat.completions.create({
        model: "fake/m",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(toolNames(fake.requests[base]!.body)).toEqual(expected);
    },
  );

  it("sends no tools field when the caller sent none and may use none", async () => {
    fake.push({ body: completion({ content: "ok" }) });
    await tg
      .openai({ "x-bf-mcp-include-clients": "nobody" })
      .chat.completions.create({
        model: "fake/m",
        messages: [{ role: "user", content: "hi" }],
      });
    expect(fake.requests[base]!.body).not.toHaveProperty("tools");
  });

  it("offers a 100-character tool name as a valid 64-character alias and maps the model's call back to the name", async () => {
    expect(LONG_TOOL).toHaveLength(100);
    const alias = functionName(LONG_TOOL);
    fake.push({
      body: completion({
        toolCalls: [
          { id: "call_long", name: alias, arguments: { message: "x" } },
        ],
      }),
    });
    const res = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(alias).toMatch(/^[a-zA-Z0-9_-]{64}$/);
    expect(toolNames(fake.requests[base]!.body)).toContain(alias);
    const call = res.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" ? call.function.name : undefined).toBe(
      LONG_TOOL,
    );

    // The caller sends the history back with the real name; the provider sees the alias again.
    fake.push({ body: completion({ content: "done" }) });
    await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_long",
              type: "function",
              function: { name: LONG_TOOL, arguments: "{}" },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_long", content: "x" },
      ],
    });
    expect(
      fake.requests[base + 1]!.body.messages[1].tool_calls[0].function.name,
    ).toBe(alias);
  });

  it("renames an aliased tool call back to its name inside a stream", async () => {
    const alias = functionName(LONG_TOOL);
    const base0 = {
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
    };
    fake.push({
      sse: [
        {
          data: {
            ...base0,
            choices: [
              {
                index: 0,
                delta: {
                  role: "assistant",
                  tool_calls: [
                    {
                      index: 0,
                      id: "t1",
                      type: "function",
                      function: { name: alias, arguments: "" },
                    },
                  ],
                },
                finish_reason: null,
              },
            ],
          },
        },
        {
          data: {
            ...base0,
            choices: [
              {
                index: 0,
                delta: {
                  tool_calls: [{ index: 0, function: { arguments: "{}" } }],
                },
                finish_reason: null,
              },
            ],
          },
        },
        {
          data: {
            ...base0,
            choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }],
          },
        },
        { data: "[DONE]" },
      ],
    });
    const stream = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const names: string[] = [];
    for await (const c of stream)
      for (const tc of c.choices[0]?.delta.tool_calls ?? [])
        if (tc.function?.name) names.push(tc.function.name);
    expect(names).toEqual([LONG_TOOL]);
  });

  it("requires a virtual key when enforce_governance_header is on", async () => {
    const strict = await startChatApp(
      { ...input, client: { enforce_governance_header: true } },
      manager.registry,
    );
    try {
      const res = await fetch(`${strict.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "fake/m",
          messages: [{ role: "user", content: "x" }],
        }),
      });
      expect(res.status).toBe(401);
      expect(
        ((await res.json()) as { error: { code: string } }).error.code,
      ).toBe("TG_ERR_VIRTUAL_KEY_REQUIRED");
      expect(fake.requests.length).toBe(base);
    } finally {
      await strict.close();
    }
  });

  it("follows a provider's new base_url and limits from a config change without a restart", async () => {
    const second = await startFakeProvider();
    try {
      fake.push({ body: completion({ content: "from the first" }) });
      await tg.openai().chat.completions.create({
        model: "fake/m",
        messages: [{ role: "user", content: "hi" }],
      });
      const before = tg.config;
      tg.config = GatewayConfig.parse({
        ...input,
        providers: {
          ...input.providers,
          fake: {
            base_url: second.url,
            api_key: "env.FAKE_PROVIDER_KEY",
            concurrency_and_buffer_size: { concurrency: 3, buffer_size: 7 },
          },
        },
      });
      second.push({ body: completion({ content: "from the second" }) });
      const res = await tg.openai().chat.completions.create({
        model: "fake/m",
        messages: [{ role: "user", content: "hi" }],
      });
      expect(res.choices[0]?.message.content).toBe("from the second");
      expect(tg.chat.queueStats("fake")).toMatchObject({
        concurrency: 3,
        bufferSize: 7,
      });
      tg.config = before;
    } finally {
      await second.close();
    }
  });

  it("passes upstream errors back with their status and body", async () => {
    fake.push({
      status: 422,
      body: {
        error: {
          message: "the model does not like this",
          type: "invalid_request_error",
          code: "nope",
        },
      },
    });
    const err = await tg
      .openai()
      .chat.completions.create({
        model: "fake/m",
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((err as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: "the model does not like this",
      code: "nope",
    });
    await vi.waitFor(() =>
      expect(tg.recorder.calls.at(-1)).toMatchObject({
        success: false,
        reason: "http_422",
      }),
    );
  });

  it("rejects an unknown provider with 400 naming the configured ones", async () => {
    const res = await fetch(`${tg.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "nope/m",
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string };
    };
    expect(body.error.code).toBe("TG_ERR_UNKNOWN_PROVIDER");
    expect(body.error.message).toContain('unknown provider "nope"');
    expect(body.error.message).toContain("fake, other");
  });

  it.each([
    [{ model: "fake/m" }, "messages"],
    [
      { model: "gpt-4o", messages: [{ role: "user", content: "x" }] },
      '"<provider>/<model>"',
    ],
    [{ model: "fake/m", messages: [{ content: "x" }] }, "messages.0.role"],
  ])(
    "rejects an invalid body %o with a 400 that names the problem",
    async (payload, needle) => {
      const res = await fetch(`${tg.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      expect(res.status).toBe(400);
      const body = (await res.json()) as {
        error: { code: string; message: string };
      };
      expect(body.error.code).toBe("TG_ERR_VALIDATION");
      expect(body.error.message).toContain(needle);
    },
  );

  it("answers 502 naming the provider when it cannot be reached", async () => {
    const res = await fetch(`${tg.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "other/m",
        messages: [{ role: "user", content: "x" }],
      }),
    });
    expect(res.status).toBe(502);
    expect(
      ((await res.json()) as { error: { message: string } }).error.message,
    ).toContain('provider "other"');
  });

  it("streams the provider's chunks one for one as they arrive, without buffering", async () => {
    const second = gate();
    fake.push({
      sse: completionChunks(["Hel", "lo", " world"], {
        usage: { prompt: 4, completion: 3 },
        gates: [undefined, second.promise],
      }),
    });
    const stream = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const it = stream[Symbol.asyncIterator]();
    // The first chunk reaches the caller while the provider still holds the second one back.
    const first = await it.next();
    expect(first.value?.choices[0]?.delta.content).toBe("Hel");
    second.open();
    const rest: string[] = [];
    let usage: unknown;
    for (let n = await it.next(); !n.done; n = await it.next()) {
      const c = n.value.choices[0]?.delta.content;
      if (c) rest.push(c);
      if (n.value.usage) usage = n.value.usage;
    }
    expect(rest).toEqual(["lo", " world"]);
    expect(usage).toMatchObject({ prompt_tokens: 4, completion_tokens: 3 });
    await vi.waitFor(() =>
      expect(tg.recorder.calls.at(-1)).toMatchObject({
        success: true,
        inputTokens: 4,
        outputTokens: 3,
      }),
    );
    const rec = tg.recorder.calls.at(-1)!;
    expect(rec.firstTokenSeconds).toBeGreaterThan(0);
    expect(rec.interTokenSeconds?.length).toBeGreaterThan(0);
  });

  it("aborts the upstream request when the caller abandons the stream", async () => {
    const never = gate();
    fake.push({
      sse: completionChunks(["one", "two"], {
        gates: [undefined, never.promise],
      }),
    });
    const stream = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const it = stream[Symbol.asyncIterator]();
    expect((await it.next()).value?.choices[0]?.delta.content).toBe("one");
    stream.controller.abort();
    const upstream = fake.requests[base]!;
    await upstream.closed;
    expect(upstream.aborted).toBe(true);
    never.open();
    await vi.waitFor(() =>
      expect(tg.recorder.calls.at(-1)).toMatchObject({
        success: false,
        reason: "cancelled",
      }),
    );
  });

  it("ends the caller's stream with an error when the provider drops it midway, and records a network failure", async () => {
    const g = gate();
    fake.push({
      sse: completionChunks(["partial", "never"], {
        gates: [undefined, g.promise],
      }),
      breakAfter: 1,
    });
    const stream = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const it = stream[Symbol.asyncIterator]();
    expect((await it.next()).value?.choices[0]?.delta.content).toBe("partial");
    g.open();
    const err = await (async () => {
      for (let n = await it.next(); !n.done; n = await it.next());
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    await vi.waitFor(() =>
      expect(tg.recorder.calls.at(-1)).toMatchObject({
        success: false,
        reason: "network",
      }),
    );
  });

  it("answers 502 naming the provider when its stream breaks before the first chunk", async () => {
    fake.push({ sse: completionChunks(["never"]), breakAfter: 0 });
    const res = await fetch(`${tg.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "fake/m",
        messages: [{ role: "user", content: "x" }],
        stream: true,
      }),
    });
    expect(res.status).toBe(502);
    expect(await res.text()).toContain(
      'the stream from provider \\"fake\\" broke',
    );
  });

  it("serves the Responses API with the caller's tools appended in the Responses shape", async () => {
    fake.push({ body: response({ text: "a response" }) });
    const res = await tg.openai().responses.create({
      model: "fake/m",
      input: "hi",
      tools: [
        {
          type: "function",
          name: "mine",
          parameters: { type: "object", properties: {} },
          strict: false,
        },
      ],
    });
    expect(res.output_text).toBe("a response");
    const got = fake.requests[base]!;
    expect(got.path).toBe("/v1/responses");
    expect(got.body.input).toBe("hi");
    expect(got.body.tools.map((t: { name: string }) => t.name)).toEqual([
      "mine",
      "everything_echo",
      "everything_get-sum",
      functionName(LONG_TOOL),
    ]);
    expect(got.body.tools[1]).toMatchObject({
      type: "function",
      strict: false,
      parameters: { type: "object" },
    });
  });

  it("passes a Responses API stream through event for event", async () => {
    const r = response({ text: "streamed" });
    fake.push({
      sse: [
        {
          event: "response.created",
          data: {
            type: "response.created",
            sequence_number: 0,
            response: { ...r, status: "in_progress", output: [] },
          },
        },
        {
          event: "response.output_text.delta",
          data: {
            type: "response.output_text.delta",
            sequence_number: 1,
            item_id: "m",
            output_index: 0,
            content_index: 0,
            delta: "streamed",
          },
        },
        {
          event: "response.completed",
          data: { type: "response.completed", sequence_number: 2, response: r },
        },
      ],
    });
    const stream = await tg
      .openai()
      .responses.create({ model: "fake/m", input: "hi", stream: true });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    expect(types).toEqual([
      "response.created",
      "response.output_text.delta",
      "response.completed",
    ]);
    await vi.waitFor(() =>
      expect(tg.recorder.calls.at(-1)).toMatchObject({
        success: true,
        inputTokens: 10,
        outputTokens: 5,
      }),
    );
  });

  it("offers a virtual key only the tools its mcp_configs allow and labels telemetry with the key", async () => {
    fake.push({ body: completion({ content: "ok" }) });
    const client = new OpenAI({
      baseURL: `${vkApp.url}/v1`,
      apiKey: "vk-secret-a",
      maxRetries: 0,
    });
    await client.chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(toolNames(fake.requests[base]!.body)).toEqual([
      "everything_get-sum",
    ]);
    expect(fake.requests[base]!.headers.authorization).toBe(
      "Bearer sk-provider",
    );
    await vi.waitFor(() =>
      expect(vkApp.recorder.calls.at(-1)?.labels).toMatchObject({
        virtual_key_id: "vk1",
        virtual_key_name: "team-a",
      }),
    );
  });

  it("refuses an unknown virtual key with 401 and never calls the provider", async () => {
    const client = new OpenAI({
      baseURL: `${vkApp.url}/v1`,
      apiKey: "wrong",
      maxRetries: 0,
    });
    const err = await client.chat.completions
      .create({ model: "fake/m", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(401);
    expect(fake.requests.length).toBe(base);
  });
});
