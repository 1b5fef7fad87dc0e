import { afterEach, describe, expect, it, vi } from "vitest";

import { chatDialect } from "./chat-dialect.js";
import { runAgent } from "./loop.js";
import type { AgentOptions, Decision, Json, ToolCall } from "./types.js";

const toolTurn = (
  calls: { id: string; name: string; args?: string }[],
): Json => ({
  choices: [
    {
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.args ?? "{}" },
        })),
      },
    },
  ],
});
const answer = (text: string): Json => ({
  choices: [
    {
      index: 0,
      finish_reason: "stop",
      message: { role: "assistant", content: text },
    },
  ],
});

function options(
  script: Json[],
  classify: (c: ToolCall) => Decision,
  over: Partial<AgentOptions> = {},
): AgentOptions & { seen: Json[] } {
  const seen: Json[] = [];
  return {
    seen,
    maxDepth: 10,
    timeoutMs: 1000,
    parentRequestId: "req-7",
    signal: new AbortController().signal,
    callModel: (request) => {
      seen.push(request);
      const next = script.shift();
      return next
        ? Promise.resolve(next)
        : Promise.reject(new Error("script exhausted"));
    },
    classify,
    ...over,
  };
}

describe("runAgent", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("bounds a tool that never answers by the execution timeout and tells the model", async () => {
    vi.useFakeTimers();
    const hang: Decision = {
      kind: "auto",
      label: "slow_tool",
      run: () => new Promise(() => undefined),
    };
    const opts = options(
      [toolTurn([{ id: "1", name: "slow_tool" }]), answer("gave up")],
      () => hang,
      { timeoutMs: 5000 },
    );
    const run = runAgent(
      chatDialect,
      { messages: [{ role: "user", content: "x" }] },
      opts,
    );
    await vi.advanceTimersByTimeAsync(5100);
    const result = await run;
    expect(result.response).toMatchObject({
      choices: [{ message: { content: "gave up" } }],
    });
    const tool = (opts.seen[1]?.messages as Json[]).at(-1);
    expect(tool?.content).toContain("did not answer within 5000 ms");
  });

  it("answers arguments that are not a JSON object with an error result instead of calling the tool", async () => {
    let calls = 0;
    const auto: Decision = {
      kind: "auto",
      label: "t",
      run: () => (calls++, Promise.resolve({ text: "ran", isError: false })),
    };
    const opts = options(
      [toolTurn([{ id: "1", name: "t", args: "[1,2" }]), answer("ok")],
      () => auto,
    );
    await runAgent(chatDialect, { messages: [] }, opts);
    expect(calls).toBe(0);
    expect(
      String((opts.seen[1]?.messages as Json[]).at(-1)?.content),
    ).toContain("not a JSON object");
  });

  it("turns a tool that throws into an error result", async () => {
    const boom: Decision = {
      kind: "auto",
      label: "t",
      run: () => Promise.reject(new Error("exploded")),
    };
    const opts = options(
      [toolTurn([{ id: "1", name: "t" }]), answer("ok")],
      () => boom,
    );
    const result = await runAgent(chatDialect, { messages: [] }, opts);
    expect(result.stop).toBe("final");
    expect((opts.seen[1]?.messages as Json[]).at(-1)?.content).toBe(
      "Error: exploded",
    );
  });

  it("names iterations <parent-id>-<iteration> by default", async () => {
    const ids: string[] = [];
    const auto: Decision = {
      kind: "auto",
      label: "t",
      run: (_a, ctx) => (
        ids.push(ctx.requestId),
        Promise.resolve({ text: "", isError: false })
      ),
    };
    const opts = options(
      [
        toolTurn([{ id: "1", name: "t" }]),
        toolTurn([{ id: "2", name: "t" }]),
        answer("ok"),
      ],
      () => auto,
    );
    const result = await runAgent(chatDialect, { messages: [] }, opts);
    expect(ids).toEqual(["req-7-1", "req-7-2"]);
    expect(result.iterations).toBe(3);
  });

  it("removes skipped calls from a response it returns to the caller", async () => {
    const opts = options(
      [
        toolTurn([
          { id: "s", name: "hidden" },
          { id: "m", name: "mine" },
        ]),
      ],
      (c) =>
        c.name === "hidden"
          ? { kind: "skipped", reason: "no" }
          : { kind: "manual" },
    );
    const result = await runAgent(chatDialect, { messages: [] }, opts);
    expect(result.stop).toBe("manual");
    expect(result.response).toMatchObject({
      choices: [{ message: { tool_calls: [{ id: "m" }] } }],
    });
  });
});
