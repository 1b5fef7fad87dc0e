import { describe, expect, it } from "vitest";

import { responsesDialect } from "./responses-dialect.js";

describe("responsesDialect", () => {
  it("rewrites a denied function_call_output into an informative sentence and drops stream", () => {
    const body = {
      model: "m",
      stream: true,
      input: [
        { role: "user", content: "go" },
        {
          type: "function_call",
          call_id: "c1",
          name: "files_delete",
          arguments: "{}",
        },
        {
          type: "function_call_output",
          call_id: "c1",
          output: '{"denied":true}',
        },
      ],
    };
    const out = responsesDialect.prepare(body);
    expect(out).not.toHaveProperty("stream");
    expect((out.input as { output?: string }[])[2]?.output).toBe(
      "The user denied the tool call files_delete, so it was not executed. Do not call it again for this request; continue without its result.",
    );
    expect(body.input[2]?.output).toBe('{"denied":true}');
  });

  it("leaves ordinary results untouched, even when they mention denied", () => {
    const input = [
      {
        type: "function_call_output",
        call_id: "c1",
        output: '{"denied":false,"rows":3}',
      },
    ];
    expect(responsesDialect.prepare({ input }).input).toBe(input);
  });

  it("drops skipped calls from a response it returns", () => {
    const res = {
      output: [
        { type: "function_call", call_id: "a", name: "x", arguments: "{}" },
        { type: "function_call", call_id: "b", name: "y", arguments: "{}" },
      ],
    };
    const kept = responsesDialect.keepCalls(res, [
      { id: "b", name: "y", arguments: "{}" },
    ]);
    expect(
      (kept.output as { call_id: string }[]).map((i) => i.call_id),
    ).toEqual(["b"]);
  });
});
