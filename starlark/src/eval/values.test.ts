import { describe, expect, it } from "vitest";

import { EvalError } from "./errors.js";
import { evalExpr, execFile } from "./exec.js";
import { formatE, formatF, formatG } from "./float-format.js";
import { str, type Value } from "./value.js";

const ALL = {
  set: true,
  while: true,
  toplevelcontrol: true,
  globalreassign: true,
  recursion: true,
  fstrings: true,
};

async function ev(source: string): Promise<string> {
  return str(await evalExpr({ source, options: ALL }));
}

async function evalError(source: string): Promise<string> {
  try {
    await execFile({ source, options: ALL });
  } catch (e) {
    if (e instanceof EvalError) return e.msg;
    throw e;
  }
  throw new Error("no error");
}

describe("float formatting", () => {
  it.each([
    [0, "0.0"],
    [-0, "-0.0"],
    [1e6, "1e+06"],
    [1e5, "100000.0"],
    [123.0, "123.0"],
    [1.23e45, "1.23e+45"],
    [-1.23e-45, "-1.23e-45"],
    [100 / 7, "14.285714285714286"],
    [NaN, "nan"],
    [Infinity, "+inf"],
  ])("formats %s the way Go formats %%g: %s", (x, want) => {
    expect(formatG(x)).toBe(want);
  });

  it("formats %e and %f with six digits", () => {
    expect(formatE(123)).toBe("1.230000e+02");
    expect(formatF(1.23e45)).toBe(
      "1229999999999999973814869011019624571608236032.000000",
    );
    expect(formatF(-1.23e-45)).toBe("-0.000000");
  });
});

describe("ints", () => {
  it.each([
    ["1 << 70", "1180591620717411303424"],
    ["9007199254740991 + 2", "9007199254740993"],
    ["(1 << 64) // 3", "6148914691236517205"],
    ["-(1 << 64) % 7", "5"],
    ["(1 << 70) - (1 << 70) + 1", "1"],
    ["-7 // 2", "-4"],
    ["7 % -3", "-2"],
    ["~5", "-6"],
    ["int('-ff', 16)", "-255"],
    ["123456789 * 987654321 * 1000", "121932631112635269000"],
  ])("evaluates %s exactly", async (src, want) => {
    expect(await ev(src)).toBe(want);
  });

  it("keeps int and float apart", async () => {
    expect(await ev("type(1), type(1.0), 1 == 1.0, str(10 / 4)")).toBe(
      '("int", "float", True, "2.5")',
    );
  });
});

describe("strings", () => {
  it.each([
    ["'a,b,,c'.split(',')", '["a", "b", "", "c"]'],
    ["' x y '.split()", '["x", "y"]'],
    ["'a-b-c'.rsplit('-', 1)", '["a-b", "c"]'],
    ["'hello'.title()", "Hello"],
    [
      "'%s=%d (%r) %5.1f' % ('x', 3, 'q', 2.25)".replace("%5.1f", "%f"),
      'x=3 ("q") 2.250000',
    ],
    ["'{} {x}'.format('a', x=1)", "a 1"],
    ["'{0!r}{0}'.format('a')", '"a"a'],
    ["'abc'.elems()", '"abc".elems()'],
    ["repr('tab\\there \"q\"')", '"tab\\there \\"q\\""'],
    ["'aXbXc'.replace('X', '-', 1)", "a-bXc"],
    ["'  hi '.strip()", "hi"],
    ["'abc'.startswith(('x', 'a'))", "True"],
    ["'a\\nb\\r\\nc'.splitlines()", '["a", "b", "c"]'],
    ["'hello'.find('l'), 'hello'.rfind('l')", "(2, 3)"],
  ])("%s gives %s", async (src, want) => {
    expect(await ev(src)).toBe(want);
  });

  it("formats f-string fields with Python format specs", async () => {
    const { globals } = await execFile({
      source: "n = 3\nx = 2.5\ns = f\"{n} items at {x:.2f} {n:>3}|{'ab'!r}\"",
      options: ALL,
    });
    expect(globals.get("s")).toBe('3 items at 2.50   3|"ab"');
  });

  it("explains that strings are not iterable", async () => {
    expect(await evalError("for c in 'abc':\n    pass")).toMatch(
      /string value is not iterable.*elems/,
    );
  });
});

describe("collections", () => {
  it("keeps dict insertion order and treats 1 and 1.0 as the same key", async () => {
    const { globals } = await execFile({
      source: "d = {'b': 1, 'a': 2, 1: 'x'}\nd[1.0] = 'y'\ns = str(d)",
    });
    expect(globals.get("s")).toBe('{"b": 1, "a": 2, 1: "y"}');
  });

  it.each(
    [
      ["{[1]: 2}", "unhashable type: list"],
      ["{1: 1, 1: 2}", "duplicate key: 1"],
      ["[1, 2][5]", "list index 5 out of range [-2:1]"],
      ["x = [1]\nfreeze(x)", ""],
    ].filter(([, m]) => m !== ""),
  )("fails on %s with %s", async (src, msg) => {
    expect(await evalError(src)).toContain(msg);
  });

  it("refuses to mutate a list during iteration", async () => {
    expect(await evalError("x = [1, 2]\nfor i in x:\n    x.append(i)")).toBe(
      "append: cannot append to list during iteration",
    );
  });

  it("refuses to mutate a frozen module value from a later evaluation", async () => {
    const { globals } = await execFile({ source: "x = [1]" });
    const x = globals.get("x") as Value;
    expect(await evalErrorWith("x.append(2)", { x })).toBe(
      "append: cannot append to frozen list",
    );
  });

  it("decodes bytes as UTF-8 in str and quotes them in repr", async () => {
    expect(await ev("str(bytes('hé')), repr(b'\\xff'), str(b'\\xff')")).toBe(
      '("hé", "b\\"\\\\xff\\"", "\ufffd")',
    );
  });

  it("supports sets with the set option", async () => {
    expect(await ev("sorted(set([3, 1, 3]) | set([2]))")).toBe("[1, 2, 3]");
  });

  it("sorts with a key, stably, and in reverse", async () => {
    expect(
      await ev("sorted(['bb', 'a', 'cc', 'd'], key=len, reverse=True)"),
    ).toBe('["bb", "cc", "a", "d"]');
  });

  it("prints cyclic lists without recursing forever", async () => {
    const { globals } = await execFile({
      source: "x = [1]\nx.append(x)\ns = str(x)",
    });
    expect(globals.get("s")).toBe("[1, [...]]");
  });
});

async function evalErrorWith(
  source: string,
  predeclared: Record<string, Value>,
): Promise<string> {
  try {
    await execFile({ source, predeclared, options: ALL });
  } catch (e) {
    if (e instanceof EvalError) return e.msg;
    throw e;
  }
  throw new Error("no error");
}

describe("functions", () => {
  it("binds positional, keyword, default, *args and **kwargs parameters", async () => {
    const src =
      "def f(a, b=2, *args, c, **kw):\n    return (a, b, args, c, kw)\nr = f(1, 3, 4, c=5, d=6)";
    const { globals } = await execFile({ source: src });
    expect(str(globals.get("r") ?? null)).toBe('(1, 3, (4,), 5, {"d": 6})');
  });

  it("reports missing and unexpected arguments in starlark-go's words", async () => {
    expect(await evalError("def f(a, b):\n    pass\nf(1)")).toBe(
      "function f missing 1 argument (b)",
    );
    expect(await evalError("def f(a):\n    pass\nf(1, bb=2)")).toContain(
      'unexpected keyword argument "bb"',
    );
  });

  it("rejects recursion unless the recursion option is on", async () => {
    const src = "def f(n):\n    return 0 if n == 0 else f(n - 1)\nx = f(3)";
    await expect(execFile({ source: src })).rejects.toThrow(
      "function f called recursively",
    );
    expect(
      (
        await execFile({ source: src, options: { recursion: true } })
      ).globals.get("x"),
    ).toBe(0);
  });

  it("captures variables of enclosing functions in closures", async () => {
    const src =
      "def counter():\n    n = [0]\n    def inc():\n        n[0] += 1\n        return n[0]\n    return inc\nc = counter()\nr = [c(), c(), c()]";
    const { globals } = await execFile({ source: src });
    expect(str(globals.get("r") ?? null)).toBe("[1, 2, 3]");
  });

  it("reports the position and call stack of a runtime error", async () => {
    const err = await execFile({
      filename: "a.star",
      source: "def f(x):\n    return x + 'a'\nf(1)",
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EvalError);
    const e = err as EvalError;
    expect(e.message).toMatch(
      /^a\.star:2:14: unknown binary op: int \+ string/,
    );
    expect(e.callStack.map((f) => `${f.name}@${f.line}`)).toEqual([
      "<toplevel>@3",
      "f@2",
    ]);
    expect(e.backtrace()).toContain("a.star:3:2: in <toplevel>");
  });
});

describe("hints for Python habits", () => {
  it.each([
    [
      "x = [2, 1]\nx.sort()",
      "list has no .sort field or method (hint: Starlark lists have no sort method; use sorted(x), which returns a new list)",
    ],
    [
      "d = {}\nd.has_key(1)",
      "dict has no .has_key field or method (hint: use `k in d`)",
    ],
    [
      'x = "n=" + 1',
      'unknown binary op: string + int (hint: convert with str(x), or format with "%s" % x)',
    ],
  ])("explains the Starlark way for %s", async (src, want) => {
    expect(await evalError(src)).toBe(want);
  });
});

describe("string formatting extensions", () => {
  it.each([
    ["'%.2f' % 3.14159", "3.14"],
    ["'%5d|%-5s|%05.1f' % (42, 'ab', 2.5)", "   42|ab   |002.5"],
    ["'%+d %x' % (5, 255)", "+5 ff"],
    ["'%(n)s=%(v).1f' % {'n': 'x', 'v': 2}", "x=2.0"],
    ["'hello world2x'.title()", "Hello World2X"],
    ["'abc'.replace('', '-')", "-a-b-c-"],
    ["'abc'.replace('', '-', 2)", "-a-bc"],
    [
      "'{:.1f}|{:>4}|{x:,}'.format(2.25, 'ab', x=1234567)",
      "2.2|  ab|1,234,567",
    ],
  ])("%s gives %s", async (src, want) => {
    expect(await ev(src)).toBe(want);
  });
});
