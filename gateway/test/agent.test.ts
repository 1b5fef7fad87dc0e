/**
 * Agent mode (SPEC 9) end to end: the openai client calls Toolgate, the scripted provider
 * plays the model, and the tools run on a real MCP server (server-everything over stdio).
 */
import type OpenAI from "openai";
import {
  afterAll,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
  vi,
} from "vitest";

import { MIXED_PREFIX, MIXED_SUFFIX } from "../src/agent/index.js";
import type { ExtraTool } from "../src/chat/index.js";
import type { GatewayConfigInput } from "../src/config/schema.js";
import { GatewayConfig } from "../src/config/schema.js";
import type { ToolRegistry } from "../src/registry/types.js";
import { createUpstreamManager } from "../src/upstream/index.js";
import type { ChatApp } from "./fixtures/chat-app.js";
import { startChatApp } from "./fixtures/chat-app.js";
import type { FakeProvider } from "./fixtures/fake-provider.js";
import {
  completion,
  response,
  startFakeProvider,
} from "./fixtures/fake-provider.js";
import { everythingStdio } from "./fixtures/servers.js";
import { silentLogger } from "./fixtures/upstream-harness.js";

type Msg = {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string } }[];
};

describe("agent mode against a real MCP server", () => {
  let fake: FakeProvider;
  let tg: ChatApp;
  const manager = createUpstreamManager({ logger: silentLogger() });
  const events: string[] = [];
  let input: GatewayConfigInput;

  /** The manager's registry, with every call's start and end noted (for the parallelism test). */
  const observed = (r: ToolRegistry): ToolRegistry => ({
    get version() {
      return r.version;
    },
    list: (f) => r.list(f),
    resolve: (n) => r.resolve(n),
    isVisible: (e, f) => r.isVisible(e, f),
    onChange: (l) => r.onChange(l),
    call: async (entry, args, opts) => {
      const tag = `${entry.name}#${JSON.stringify(args)}`;
      events.push(`start ${tag}`);
      const result = await r.call(entry, args, opts);
      events.push(`end ${tag}`);
      return result;
    },
  });

  const doubler: ExtraTool = {
    name: "double_it",
    description: "doubles n",
    parameters: { type: "object", properties: { n: { type: "number" } } },
    classify: (args) =>
      typeof args.n === "number" && args.n > 100 ? "manual" : "auto",
    execute: (args) =>
      Promise.resolve({ text: String(Number(args.n) * 2), isError: false }),
  };

  beforeAll(async () => {
    fake = await startFakeProvider();
    input = {
      providers: { fake: { base_url: fake.url } },
      mcp: {
        client_configs: [
          everythingStdio("ev", {
            tools_to_execute: [
              "echo",
              "get-sum",
              "trigger-long-running-operation",
              "get-env",
            ],
            tools_to_auto_execute: [
              "echo",
              "get-sum",
              "trigger-long-running-operation",
            ],
          }),
        ],
        tool_manager_config: {
          max_agent_depth: 3,
          tool_execution_timeout: "20s",
        },
      },
    };
    await manager.apply(GatewayConfig.parse(input));
    await manager.waitConnected("ev", 20_000);
    tg = await startChatApp(input, observed(manager.registry), {
      iterationRequestId: (parent, i) => `${parent}/iteration-${i}`,
      extraTools: ({ headers }) =>
        headers["x-test-extra"] === "on" ? [doubler] : [],
    });
  });

  afterAll(async () => {
    await tg.close();
    await manager.close();
    await fake.close();
  });

  let base = 0;
  beforeEach(() => {
    base = fake.requests.length;
    events.length = 0;
  });

  const sent = (
    i: number,
  ): { messages: Msg[]; stream?: unknown; tools?: unknown[] } =>
    fake.requests[base + i]!.body;
  const ask = (
    extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {},
    headers: Record<string, string> = {},
  ) =>
    tg.openai(headers).chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "go" }],
      ...extra,
    });

  it("runs auto tools until the model answers, feeding each result back and summing usage", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [
            { id: "c1", name: "ev_get-sum", arguments: { a: 2, b: 3 } },
          ],
          usage: { prompt: 11, completion: 2 },
        }),
      },
      {
        body: completion({
          toolCalls: [
            { id: "c2", name: "ev_echo", arguments: { message: "hi there" } },
          ],
          usage: { prompt: 20, completion: 3 },
        }),
      },
      {
        body: completion({
          content: "The sum is 5.",
          usage: { prompt: 30, completion: 4 },
        }),
      },
    );
    const recorded = tg.recorder.calls.length;
    const res = await ask();
    expect(res.choices[0]?.message.content).toBe("The sum is 5.");
    // One provider record per iteration, each with that iteration's tokens.
    await vi.waitFor(() => expect(tg.recorder.calls.length - recorded).toBe(3));
    expect(tg.recorder.calls.slice(recorded).map((c) => c.inputTokens)).toEqual(
      [11, 20, 30],
    );
    expect(res.usage).toMatchObject({
      prompt_tokens: 61,
      completion_tokens: 9,
      total_tokens: 70,
    });
    expect(fake.requests.length - base).toBe(3);
    const second = sent(1).messages;
    expect(second.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ id: "c1", function: { name: "ev_get-sum" } }],
    });
    expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1" });
    expect(String(second.at(-1)?.content)).toContain("5");
    const third = sent(2).messages;
    expect(third).toHaveLength(5);
    expect(third.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c2" });
    expect(String(third.at(-1)?.content)).toContain("hi there");
    expect(sent(0)).not.toHaveProperty("stream");
    expect(tg.mcpRecorder.iterations.at(-1)).toBe(3);
  });

  it("gives every iteration its own request id from the embedded-library option", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [{ name: "ev_echo", arguments: { message: "x" } }],
        }),
      },
      { body: completion({ content: "ok" }) },
    );
    await ask();
    const ids = fake.requests
      .slice(base)
      .map((r) => String(r.headers["x-request-id"]));
    expect(ids[0]).toMatch(/\/iteration-1$/);
    expect(ids[1]).toBe(ids[0]!.replace(/1$/, "2"));
  });

  it("returns the mixed response when auto and manual calls come together, with repeated tools as lists", async () => {
    fake.push({
      body: completion({
        content: "let me look",
        toolCalls: [
          { id: "s1", name: "ev_get-sum", arguments: { a: 1, b: 1 } },
          { id: "m1", name: "ev_get-env", arguments: {} },
          { id: "e1", name: "ev_echo", arguments: { message: "first" } },
          { id: "e2", name: "ev_echo", arguments: { message: "second" } },
        ],
      }),
    });
    const res = await ask();
    expect(fake.requests.length - base).toBe(1);
    const choice = res.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.tool_calls).toEqual([
      {
        id: "m1",
        type: "function",
        function: { name: "ev_get-env", arguments: "{}" },
      },
    ]);
    const content = choice.message.content ?? "";
    expect(content.startsWith(MIXED_PREFIX)).toBe(true);
    expect(content.endsWith(MIXED_SUFFIX)).toBe(true);
    const results = JSON.parse(
      content.slice(MIXED_PREFIX.length, -MIXED_SUFFIX.length),
    ) as Record<string, unknown>;
    expect(Object.keys(results)).toEqual(["ev_echo", "ev_get-sum"]);
    expect(results.ev_echo).toEqual([
      expect.stringContaining("first"),
      expect.stringContaining("second"),
    ]);
    expect(results["ev_get-sum"]).toEqual(expect.stringContaining("2"));
    expect(events.filter((e) => e.startsWith("start"))).toHaveLength(3);
  });

  it("returns the caller's own tools and tools the gateway does not know as manual calls, untouched", async () => {
    fake.push({
      body: completion({
        toolCalls: [
          { id: "x1", name: "my_lookup", arguments: { q: 1 } },
          { id: "x2", name: "weather_now", arguments: {} },
        ],
      }),
    });
    const res = await ask({
      tools: [
        {
          type: "function",
          function: {
            name: "my_lookup",
            parameters: { type: "object", properties: {} },
          },
        },
      ],
    });
    expect(res.choices[0]?.finish_reason).toBe("tool_calls");
    expect(res.choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual([
      "x1",
      "x2",
    ]);
    expect(events).toEqual([]);
  });

  it("skips a tool outside tools_to_execute: not executed, the model is told, the loop goes on", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [
            { id: "k1", name: "ev_get-tiny-image", arguments: {} },
            { id: "k2", name: "ev_echo", arguments: { message: "kept" } },
          ],
        }),
      },
      { body: completion({ content: "final" }) },
    );
    const res = await ask();
    expect(res.choices[0]?.message.content).toBe("final");
    const results = sent(1).messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual(["k1", "k2"]);
    expect(String(results[0]?.content)).toContain("was not executed");
    expect(String(results[1]?.content)).toContain("kept");
    expect(events.map((e) => e.split("#")[0])).toEqual([
      "start ev_echo",
      "end ev_echo",
    ]);
  });

  it("stops at max_agent_depth and returns the current state with its calls pending", async () => {
    for (let i = 0; i < 3; i++)
      fake.push({
        body: completion({
          toolCalls: [
            {
              id: `d${i}`,
              name: "ev_echo",
              arguments: { message: `round ${i}` },
            },
          ],
        }),
      });
    const res = await ask();
    expect(fake.requests.length - base).toBe(3);
    expect(res.choices[0]?.finish_reason).toBe("tool_calls");
    expect(res.choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual([
      "d2",
    ]);
    expect(events.filter((e) => e.startsWith("start"))).toHaveLength(2);
    expect(tg.mcpRecorder.iterations.at(-1)).toBe(3);
  });

  it("runs the auto calls of one iteration in parallel", async () => {
    const slow = (n: number) => ({
      id: `p${n}`,
      name: "ev_trigger-long-running-operation",
      arguments: { duration: 0.3, steps: 1, n },
    });
    fake.push(
      { body: completion({ toolCalls: [slow(1), slow(2)] }) },
      { body: completion({ content: "both done" }) },
    );
    const res = await ask();
    expect(res.choices[0]?.message.content).toBe("both done");
    // Both calls started before either ended: they overlapped.
    expect(events.map((e) => e.split(" ")[0])).toEqual([
      "start",
      "start",
      "end",
      "end",
    ]);
    // The model was called again only once, with both results.
    expect(fake.requests.length - base).toBe(2);
    expect(
      sent(1)
        .messages.filter((m) => m.role === "tool")
        .map((m) => m.tool_call_id),
    ).toEqual(["p1", "p2"]);
  });

  it("feeds an upstream tool error back to the model as a result and continues", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [
            {
              id: "bad",
              name: "ev_get-sum",
              arguments: { a: "not a number", b: 1 },
            },
          ],
        }),
      },
      { body: completion({ content: "sorry, that failed" }) },
    );
    const res = await ask();
    expect(res.choices[0]?.message.content).toBe("sorry, that failed");
    const result = sent(1).messages.at(-1);
    expect(result).toMatchObject({ role: "tool", tool_call_id: "bad" });
    expect(String(result?.content).toLowerCase()).toMatch(
      /error|invalid|expected/,
    );
  });

  it("passes a provider error inside the loop back with its status and body", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [{ name: "ev_echo", arguments: { message: "x" } }],
        }),
      },
      {
        status: 503,
        body: { error: { message: "overloaded", type: "server_error" } },
      },
    );
    const err = (await ask().catch((e: unknown) => e)) as {
      status: number;
      error: unknown;
    };
    expect(err.status).toBe(503);
    expect(err.error).toMatchObject({ message: "overloaded" });
  });

  it("rewrites a caller's denial into an informative tool message for the model", async () => {
    fake.push({ body: completion({ content: "understood" }) });
    await ask({
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "m9",
              type: "function",
              function: { name: "ev_get-env", arguments: "{}" },
            },
          ],
        },
        {
          role: "tool",
          tool_call_id: "m9",
          content: JSON.stringify({ denied: true, reason: "no env access" }),
        },
      ],
    });
    const msg = sent(0).messages[2];
    expect(msg).toMatchObject({ role: "tool", tool_call_id: "m9" });
    expect(msg?.content).toBe(
      "The user denied the tool call ev_get-env, so it was not executed. Reason given: no env access. Do not call it again for this request; continue without its result.",
    );
  });

  it("runs the loop and then streams the final answer as chat completion chunks", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [{ name: "ev_echo", arguments: { message: "s" } }],
        }),
      },
      { body: completion({ content: "streamed final" }) },
    );
    const stream = await tg.openai().chat.completions.create({
      model: "fake/m",
      messages: [{ role: "user", content: "go" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe("streamed final");
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 10 });
    expect(sent(0)).not.toHaveProperty("stream");
    expect(sent(0)).not.toHaveProperty("stream_options");
  });

  it("runs the loop over the Responses API and returns the final output", async () => {
    fake.push(
      {
        body: response({
          functionCalls: [
            {
              id: "r1",
              name: "ev_echo",
              arguments: { message: "via responses" },
            },
          ],
        }),
      },
      { body: response({ text: "responses done" }) },
    );
    const res = await tg
      .openai()
      .responses.create({ model: "fake/m", input: "go" });
    expect(res.output_text).toBe("responses done");
    expect(res.usage).toMatchObject({ input_tokens: 20, output_tokens: 10 });
    const second = fake.requests[base + 1]!.body as {
      input: {
        type?: string;
        role?: string;
        call_id?: string;
        output?: string;
      }[];
    };
    expect(second.input[0]).toEqual({ role: "user", content: "go" });
    expect(second.input[1]).toMatchObject({
      type: "function_call",
      call_id: "r1",
    });
    expect(second.input[2]).toMatchObject({
      type: "function_call_output",
      call_id: "r1",
    });
    expect(second.input[2]?.output).toContain("via responses");
  });

  it("returns the mixed response in the Responses shape: a message item and one function_call item per pending call", async () => {
    fake.push({
      body: response({
        functionCalls: [
          { id: "a1", name: "ev_echo", arguments: { message: "auto" } },
          { id: "p1", name: "ev_get-env", arguments: {} },
        ],
      }),
    });
    const res = await tg
      .openai()
      .responses.create({ model: "fake/m", input: "go" });
    const [message, call, ...rest] = res.output as unknown as Record<
      string,
      unknown
    >[];
    expect(rest).toEqual([]);
    expect(message).toMatchObject({ type: "message", role: "assistant" });
    const text = (message?.content as { type: string; text: string }[])[0]!;
    expect(text.type).toBe("text");
    expect(text.text.startsWith(`${MIXED_PREFIX}{"ev_echo":"`)).toBe(true);
    expect(call).toMatchObject({
      type: "function_call",
      role: "assistant",
      call_id: "p1",
      name: "ev_get-env",
      arguments: "{}",
    });
  });

  it("accepts a Responses mixed response sent back as input and forwards it in the provider's input shape", async () => {
    fake.push({
      body: response({
        functionCalls: [
          { id: "a2", name: "ev_echo", arguments: { message: "auto" } },
          { id: "p2", name: "ev_get-env", arguments: {} },
        ],
      }),
    });
    const first = await tg
      .openai()
      .responses.create({ model: "fake/m", input: "go" });
    fake.push({ body: response({ text: "thanks" }) });
    const input = [
      { role: "user", content: "go" },
      ...(first.output as unknown[]),
      { type: "function_call_output", call_id: "p2", output: "ENV=1" },
    ];
    const second = await tg.openai().responses.create({
      model: "fake/m",
      input: input as OpenAI.Responses.ResponseInput,
    });
    expect(second.output_text).toBe("thanks");
    const forwarded = fake.requests[base + 1]!.body.input as Record<
      string,
      unknown
    >[];
    expect(forwarded[1]).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text" }],
    });
    expect(forwarded[1]).not.toHaveProperty("id");
    expect(forwarded[2]).toEqual({
      type: "function_call",
      status: "completed",
      call_id: "p2",
      name: "ev_get-env",
      arguments: "{}",
    });
    expect(forwarded[3]).toEqual({
      type: "function_call_output",
      call_id: "p2",
      output: "ENV=1",
    });
  });

  it("streams the final Responses output as events ending in response.completed", async () => {
    fake.push(
      {
        body: response({
          functionCalls: [{ name: "ev_echo", arguments: { message: "e" } }],
        }),
      },
      { body: response({ text: "evented" }) },
    );
    const stream = await tg
      .openai()
      .responses.create({ model: "fake/m", input: "go", stream: true });
    let delta = "";
    let completed: string | undefined;
    for await (const ev of stream) {
      if (ev.type === "response.output_text.delta") delta += ev.delta;
      if (ev.type === "response.completed") completed = ev.response.status;
    }
    expect(delta).toBe("evented");
    expect(completed).toBe("completed");
  });

  it("runs an extra tool (the code-mode seam) as auto or manual as it decides per call", async () => {
    fake.push(
      {
        body: completion({
          toolCalls: [{ id: "x1", name: "double_it", arguments: { n: 21 } }],
        }),
      },
      {
        body: completion({
          toolCalls: [{ id: "x2", name: "double_it", arguments: { n: 500 } }],
        }),
      },
    );
    const res = await ask({}, { "x-test-extra": "on" });
    expect(
      sent(0).tools?.map(
        (t) => (t as { function: { name: string } }).function.name,
      ),
    ).toContain("double_it");
    expect(sent(1).messages.at(-1)).toMatchObject({
      role: "tool",
      tool_call_id: "x1",
      content: "42",
    });
    expect(res.choices[0]?.message.tool_calls?.map((c) => c.id)).toEqual([
      "x2",
    ]);
  });

  it("leaves tool calls to the caller when the request may use no auto-executable tool", async () => {
    fake.push({
      body: completion({
        toolCalls: [{ id: "n1", name: "ev_get-env", arguments: {} }],
      }),
    });
    const res = await ask({}, { "x-bf-mcp-include-tools": "ev-get-env" });
    expect(
      sent(0).tools?.map(
        (t) => (t as { function: { name: string } }).function.name,
      ),
    ).toEqual(["ev_get-env"]);
    expect(res.choices[0]?.message.tool_calls?.[0]?.id).toBe("n1");
    expect(events).toEqual([]);
  });
});
