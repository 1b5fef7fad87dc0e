import { describe, expect, it } from "vitest";

import { Builtin } from "./builtin.js";
import { Dict, List } from "./collections.js";
import { toJS, toolFunction, toStarlark } from "./convert.js";
import { EvalError } from "./errors.js";
import { evalExpr, execFile } from "./exec.js";
import { HostObject } from "./host.js";
import { jsonModule } from "./json.js";
import { Float, str, type Value } from "./value.js";

const ALL = {
  set: true,
  while: true,
  toplevelcontrol: true,
  globalreassign: true,
  recursion: true,
  fstrings: true,
};

describe("async host calls", () => {
  it("suspends on a host Promise and resumes with its value", async () => {
    const calls: unknown[] = [];
    const server = new HostObject("server", {
      add: toolFunction("add", async (p) => {
        calls.push(p);
        await new Promise((r) => setTimeout(r, 1));
        return { sum: Number(p.a) + Number(p.b) };
      }),
    });
    const { globals } = await execFile({
      source:
        "r = [server.add(a=i, b=1)['sum'] for i in range(3)]\nq = server.add({'a': 5, 'b': 5})",
      predeclared: { server },
      options: ALL,
    });
    expect(toJS(globals.get("r") ?? null)).toEqual([1, 2, 3]);
    expect(toJS(globals.get("q") ?? null)).toEqual({ sum: 10 });
    expect(calls).toEqual([
      { a: 0, b: 1 },
      { a: 1, b: 1 },
      { a: 2, b: 1 },
      { a: 5, b: 5 },
    ]);
  });

  it("turns a rejected host Promise into a Starlark error at the call", async () => {
    const fail = new Builtin("boom", () =>
      Promise.reject(new Error("upstream 503")),
    );
    const err = await execFile({
      filename: "x.star",
      source: "x = 1\nboom()",
      predeclared: { boom: fail },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvalError);
    expect((err as EvalError).message).toBe("x.star:2:5: boom: upstream 503");
  });

  it("lets sorted call an async key function", async () => {
    const key = new Builtin("key", (_t, args) =>
      Promise.resolve(-(args[0] as number)),
    );
    expect(
      str(
        await evalExpr({
          source: "sorted([1, 3, 2], key=key)",
          predeclared: { key },
        }),
      ),
    ).toBe("[3, 2, 1]");
  });

  it("loads modules through the host callback", async () => {
    const { globals } = await execFile({
      source:
        'load("lib.star", "double", j = "json")\nx = double(21)\ny = j.encode([x])',
      load: async (name) => {
        if (name !== "lib.star") throw new Error(`no module ${name}`);
        const lib = await execFile({
          source: "def double(x):\n    return 2 * x\njson = j",
          predeclared: { j: jsonModule },
        });
        return lib.globals;
      },
    });
    expect(globals.get("x")).toBe(42);
    expect(globals.get("y")).toBe("[42]");
  });

  it("keeps 100 awaited host calls cheap", async () => {
    const ping = new Builtin("ping", () => Promise.resolve(1));
    const { globals } = await execFile({
      source: "n = 0\nfor i in range(100):\n    n += ping()",
      predeclared: { ping },
      options: ALL,
    });
    expect(globals.get("n")).toBe(100);
  });
});

describe("conversion", () => {
  it("converts JSON-shaped JS data to Starlark and back", () => {
    const js = { a: [1, 2.5, "x", true, null], b: { c: 3 } };
    const v = toStarlark(js);
    expect(v).toBeInstanceOf(Dict);
    expect(str(v)).toBe('{"a": [1, 2.5, "x", True, None], "b": {"c": 3}}');
    expect(toJS(v)).toEqual(js);
  });

  it("keeps integral JS numbers as ints and others as floats", () => {
    expect(toStarlark(3)).toBe(3);
    expect(toStarlark(2.5)).toBeInstanceOf(Float);
    expect(toStarlark(2n ** 80n)).toBe(2n ** 80n);
  });

  it("refuses to convert a function to JSON", async () => {
    const v = (await execFile({ source: "def f():\n    pass" })).globals.get(
      "f",
    ) as Value;
    expect(() => toJS(v)).toThrow("cannot convert function to a JSON value");
    expect(toJS(new List([]))).toEqual([]);
  });
});

describe("json module", () => {
  it.each([
    [
      'json.encode({"b": [1, 2.0, None], "a": "\\u2028<"})',
      '{"a":"\\u2028\\u003c","b":[1,2.0,null]}',
    ],
    [
      'json.decode(\'{"x": [1, 2.5, "s", true, null]}\')',
      '{"x": [1, 2.5, "s", True, None]}',
    ],
    [
      'json.indent(\'{"a":[1,2],"b":{}}\')',
      '{\n\t"a": [\n\t\t1,\n\t\t2\n\t],\n\t"b": {}\n}',
    ],
  ])("%s", async (src, want) => {
    expect(
      str(await evalExpr({ source: src, predeclared: { json: jsonModule } })),
    ).toBe(want);
  });

  it("reports decode errors with their offset", async () => {
    await expect(
      evalExpr({
        source: "json.decode('[1, 2}')",
        predeclared: { json: jsonModule },
      }),
    ).rejects.toThrow("json.decode: at offset 5, got '}', want ',' or ']'");
  });
});

describe("host safety", () => {
  it("never lets a script-chosen key replace a converted object's prototype", async () => {
    const v = await evalExpr({ source: '{"__proto__": {"polluted": True}}' });
    const js = toJS(v) as Record<string, unknown>;
    expect(Object.getPrototypeOf(js)).toBe(Object.prototype);
    expect(Object.keys(js)).toEqual(["__proto__"]);
    expect((js as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("exposes the host's own error as the cause of the evaluation error", async () => {
    class ToolFailed extends Error {}
    const boom = toolFunction("boom", () =>
      Promise.reject(new ToolFailed("quota exceeded")),
    );
    const err = await execFile({
      source: "boom(x=1)",
      predeclared: { boom },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvalError);
    expect((err as EvalError).cause).toBeInstanceOf(ToolFailed);
    expect((err as EvalError).msg).toBe("boom: quota exceeded");
  });
});
