import { describe, expect, it } from "vitest";

import { EvalError } from "./errors.js";
import { execFile } from "./exec.js";
import type { Limits } from "./thread.js";

const ALL = {
  set: true,
  while: true,
  toplevelcontrol: true,
  globalreassign: true,
  recursion: true,
};

async function failure(
  source: string,
  limits: Partial<Limits> = {},
  signal?: AbortSignal,
): Promise<EvalError> {
  const err = await execFile({
    source,
    options: ALL,
    limits,
    ...(signal ? { signal } : {}),
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof EvalError))
    throw new Error(`expected an EvalError, got ${String(err)}`);
  return err;
}

describe("sandbox limits", () => {
  it("stops a script that exceeds the step budget", async () => {
    const e = await failure("while True:\n    pass", { maxSteps: 10_000 });
    expect(e.msg).toMatch(/too many steps/);
    expect(e.isLimit).toBe(true);
  });

  it("stops an endless loop at the timeout while the event loop keeps running", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const e = await failure("while True:\n    pass", { timeoutMs: 100 });
    clearInterval(timer);
    expect(e.msg).toMatch(/timeout after 100 ms/);
    expect(ticks).toBeGreaterThan(0);
  });

  it("stops when the AbortSignal fires", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("client went away")), 20);
    const e = await failure("while True:\n    pass", {}, ac.signal);
    expect(e.msg).toBe("Starlark computation cancelled: client went away");
  });

  it.each([
    ['"x" * 1000000000', /repeat count|string too long/],
    ["list(range(1000000000))", /collection too large/],
    ["s = 'ab'\nfor i in range(40):\n    s = s + s", /string too long/],
    ["x = [0]\nfor i in range(40):\n    x = x + x", /collection too large/],
  ])("refuses the runaway allocation %s", async (src, want) => {
    const e = await failure(src, {
      maxStringLength: 1_000_000,
      maxCollectionLength: 1_000_000,
    });
    expect(e.msg).toMatch(want);
  });

  it("caps the total allocation", async () => {
    const e = await failure(
      "x = []\nfor i in range(100):\n    x = [0] * 1000",
      { maxAllocations: 50_000 },
    );
    expect(e.msg).toMatch(/allocation limit exceeded/);
  });

  it("bounds the call depth with starlark-go's words", async () => {
    const e = await failure("def f(n):\n    return f(n + 1)\nf(0)", {
      maxCallDepth: 50,
    });
    expect(e.msg).toBe("Starlark stack overflow");
    expect(e.callStack.length).toBe(50);
  });

  it("truncates print output beyond the cap", async () => {
    const lines: string[] = [];
    await execFile({
      source: "for i in range(100):\n    print('0123456789')",
      options: ALL,
      limits: { maxPrintBytes: 55 },
      print: (m) => lines.push(m),
    });
    expect(lines).toHaveLength(6);
    expect(lines[5]).toMatch(/print output truncated/);
  });
});

describe("cancellation while awaiting the host", () => {
  it("rejects promptly when the signal fires during a host call that never settles", async () => {
    const { Builtin } = await import("./builtin.js");
    const hang = new Builtin("hang", () => new Promise<never>(() => {}));
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("stop")), 20);
    const err = await execFile({
      source: "hang()",
      predeclared: { hang },
      signal: ac.signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvalError);
    expect((err as EvalError).msg).toBe("Starlark computation cancelled: stop");
  });

  it("times out a host call that never settles", async () => {
    const { Builtin } = await import("./builtin.js");
    const hang = new Builtin("hang", () => new Promise<never>(() => {}));
    const err = await execFile({
      source: "hang()",
      predeclared: { hang },
      limits: { timeoutMs: 30 },
    }).catch((e: unknown) => e);
    expect((err as EvalError).msg).toBe(
      "Starlark computation cancelled: timeout after 30 ms",
    );
  });
});

describe("work inside a single step", () => {
  it("counts the scanning done by `in` against the step budget", async () => {
    const e = await failure(
      "x = list(range(100000))\nfor i in range(1000):\n    found = -1 in x",
      { maxSteps: 200_000 },
    );
    expect(e.msg).toMatch(/too many steps/);
  });
});

describe("deeply nested values", () => {
  it("reports a value nested too deeply for str as a Starlark stack overflow", async () => {
    const e = await failure(
      "x = []\nfor i in range(100000):\n    x = [x]\ns = str(x)",
    );
    expect(e.msg).toBe(
      "str: Starlark stack overflow (value nested too deeply)",
    );
  });
});

describe("interleaved evaluations", () => {
  it("keeps each evaluation's allocation limits while they interleave at awaits", async () => {
    const { Builtin } = await import("./builtin.js");
    const tick = new Builtin(
      "tick",
      () => new Promise((r) => setTimeout(() => r(null), 5)),
    );
    const strict = execFile({
      source: "for i in range(3):\n    tick()\ns = 'x' * 5000",
      predeclared: { tick },
      options: ALL,
      limits: { maxStringLength: 1000 },
    }).catch((e: unknown) => e);
    const loose = execFile({
      source: "for i in range(3):\n    tick()\ns = 'x' * 5000",
      predeclared: { tick },
      options: ALL,
      limits: { maxStringLength: 100_000 },
    });
    const [a, b] = await Promise.all([strict, loose]);
    expect((a as EvalError).msg).toMatch(
      /string too long: 5000 characters exceeds the limit of 1000/,
    );
    expect((b.globals.get("s") as string).length).toBe(5000);
  });
});
