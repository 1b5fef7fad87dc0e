import { describe, expect, it } from "vitest";

import type { ToolAllowance, ToolFilter } from "../registry/types.js";
import { callerCatalog } from "./catalog.js";
import { executeCode, type ExecuteOutcome } from "./execute.js";
import { testRegistry } from "./test-catalog.js";

async function run(
  code: string,
  opts: { filter?: ToolFilter; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<{ outcome: ExecuteOutcome; calls: string[] }> {
  const calls: string[] = [];
  const registry = testRegistry(calls);
  const catalog = callerCatalog(registry, opts.filter ?? {});
  const outcome = await executeCode({
    code,
    catalog,
    registry,
    timeoutMs: opts.timeoutMs ?? 5_000,
    signal: opts.signal ?? new AbortController().signal,
    requestId: "req-1",
  });
  return { outcome, calls };
}

function failure(outcome: ExecuteOutcome): string {
  if (outcome.status === "success")
    throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome.error;
}

describe("executeToolCode", () => {
  it("returns the global result and the printed lines", async () => {
    const { outcome, calls } = await run(
      'total = 0\nfor i in range(3):\n    total = math.add(a=total, b=i)\n    print(f"after {i}: {total}")\nresult = {"total": total}',
    );
    expect(outcome).toEqual({
      status: "success",
      result: { total: 3 },
      logs: ["after 0: 0", "after 1: 1", "after 2: 3"],
    });
    expect(calls).toHaveLength(3);
  });

  it("returns None as null when the script sets no result", async () => {
    expect((await run("x = 1")).outcome).toEqual({
      status: "success",
      result: null,
      logs: [],
    });
  });

  it("passes one dict as the arguments, and reaches tools with non-identifier names under their identifier", async () => {
    const { outcome, calls } = await run(
      'a = math.odd_args({"max-results": 3})\nb = weather.get_forecast(city="Oslo")\nresult = [a, b]',
    );
    expect(outcome).toMatchObject({
      status: "success",
      result: ["called odd-args", { temperature: 21.5, city: "Oslo" }],
    });
    expect(calls).toEqual([
      'math_odd-args {"max-results":3}',
      'weather_get-forecast {"city":"Oslo"}',
    ]);
  });

  it("gives structured content when present, JSON text parsed, and plain text as a string", async () => {
    const { outcome } = await run(
      'result = [weather.get_forecast(city="x")["temperature"], weather.alerts()[0]["level"], math.add(a=1, b=2), weather.pass_()]',
    );
    expect(outcome).toMatchObject({
      status: "success",
      result: [21.5, 2, 3, "called pass"],
    });
  });

  it("offers the json module", async () => {
    expect(
      (await run('result = json.decode(json.encode({"a": [1]}))')).outcome,
    ).toMatchObject({ result: { a: [1] } });
  });

  it("stops at a failing tool call with its message and keeps what was printed before", async () => {
    const { outcome } = await run(
      'print("start")\nweather.alerts(region="fail")\nprint("never")',
    );
    expect(failure(outcome)).toContain(
      "weather.alerts: tool error: region not found",
    );
    expect(outcome.logs).toEqual(["start"]);
  });

  it("checks syntax before running anything", async () => {
    const { outcome, calls } = await run(
      'math.add(a=1, b=2)\nif True\n  print("x")',
    );
    expect(failure(outcome)).toMatch(
      /^syntax error, the script was not run: code\.star:\d+:\d+: got newline, want ':'/,
    );
    expect(calls).toEqual([]);
  });

  it("carries the interpreter's hints for Python habits", async () => {
    expect(failure((await run("import os")).outcome)).toContain(
      "Starlark has no import statement",
    );
    expect(failure((await run("result = sum([1, 2])")).outcome)).toContain(
      "Starlark has no sum()",
    );
  });

  it("names the available server keys for an undefined server and says to use one as the object name", async () => {
    const { outcome, calls } = await run(
      'math.add(a=1, b=1)\nresult = github.search(q="x")',
    );
    const msg = failure(outcome);
    expect(msg).toContain('undefined server "github"');
    expect(msg).toContain("Available server keys: math, weather");
    expect(msg).toContain("Use one of them as the object name");
    expect(calls).toEqual([]);
  });

  it("suggests the server a differently capitalised name meant", async () => {
    expect(
      failure((await run("result = Math.add(a=1, b=1)")).outcome),
    ).toContain("Did you mean math?");
  });

  it("refuses a tool the caller may not use and names the ones it may", async () => {
    const allowance: ToolAllowance = new Map<string, "*" | ReadonlySet<string>>(
      [
        ["math", new Set(["add"])],
        ["weather", "*"],
      ],
    );
    const { outcome, calls } = await run(
      'print("before")\nresult = math.odd_args({"max-results": 1})',
      { filter: { allowance } },
    );
    expect(failure(outcome)).toContain(
      'Server math has no tool "odd_args" available to you; its tools: add',
    );
    expect(outcome.logs).toEqual(["before"]);
    expect(calls).toEqual([]);
  });

  it("answers hasattr and getattr with a default for tools a server lacks", async () => {
    const { outcome } = await run(
      'result = [hasattr(math, "add"), hasattr(math, "mul"), getattr(math, "mul", None), str(math), type(math)]',
    );
    expect(outcome).toEqual({
      status: "success",
      result: [true, false, null, "<server math>", "math"],
      logs: [],
    });
  });

  it("has no object for a server the caller may not use at all", async () => {
    const { outcome } = await run("result = weather.alerts()", {
      filter: { excludeClients: new Set(["weather"]) },
    });
    expect(failure(outcome)).toContain(
      'undefined server "weather". Available server keys: math.',
    );
  });

  it("stops a script that loops forever at the timeout", async () => {
    const { outcome } = await run('print("spinning")\nwhile True:\n    pass', {
      timeoutMs: 150,
    });
    expect(outcome.status).toBe("timeout");
    expect(failure(outcome)).toContain("tool_execution_timeout (150 ms)");
    expect(outcome.logs).toEqual(["spinning"]);
  });

  it("stops when the caller goes away", async () => {
    const ac = new AbortController();
    const pending = run("while True:\n    pass", { signal: ac.signal });
    setTimeout(
      () => ac.abort(new Error("the caller closed the connection")),
      20,
    );
    const { outcome } = await pending;
    expect(outcome.status).toBe("error");
    expect(failure(outcome)).toContain("the caller closed the connection");
  });

  it("reports runtime errors with their position", async () => {
    const { outcome } = await run('x = {"a": 1}\nresult = x["b"]');
    expect(failure(outcome)).toMatch(/code\.star:2:\d+: .*key "b" not in dict/);
  });
});
