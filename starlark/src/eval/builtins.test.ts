import { describe, expect, it } from "vitest";

import { EvalError } from "./errors.js";
import { evalExpr } from "./exec.js";
import { UNIVERSE } from "./universe.js";
import { repr } from "./value.js";

const OPTS = { set: true };

async function ev(source: string): Promise<string> {
  return repr(await evalExpr({ source, options: OPTS }));
}

async function err(source: string): Promise<string> {
  try {
    await evalExpr({ source, options: OPTS });
  } catch (e) {
    if (e instanceof EvalError) return e.msg;
    throw e;
  }
  throw new Error(`${source} did not fail`);
}

// One or more cases per universal builtin: [expression, repr of the result].
const CASES: [string, string, string][] = [
  [
    "abs",
    "abs(-3), abs(2.5), abs(-(1 << 70))",
    "(3, 2.5, 1180591620717411303424)",
  ],
  ["all", "all([1, True, 'x']), all([1, 0])", "(True, False)"],
  ["any", "any([0, '', None]), any([0, 1])", "(False, True)"],
  ["bool", "bool(), bool(0), bool([1])", "(False, False, True)"],
  ["bytes", "bytes('hé'), bytes([104, 105])", '(b"h\\xc3\\xa9", b"hi")'],
  ["chr", "chr(65), chr(0x1F63F)", '("A", "😿")'],
  ["dict", "dict([('a', 1)], b=2), dict(a=1)", '({"a": 1, "b": 2}, {"a": 1})'],
  ["dir", "dir([])[:3]", '["append", "clear", "extend"]'],
  ["enumerate", "enumerate(['a', 'b'], 1)", '[(1, "a"), (2, "b")]'],
  ["float", "float('1.5'), float(2), float('-inf')", "(1.5, 2.0, -inf)"],
  [
    "getattr",
    "getattr('abc', 'upper')(), getattr(1, 'x', 'dflt')",
    '("ABC", "dflt")',
  ],
  ["hasattr", "hasattr([], 'append'), hasattr([], 'nope')", "(True, False)"],
  ["hash", "hash('a'), hash('') ", "(97, 0)"],
  [
    "int",
    "int('0x1f', 0), int(' 7'.strip()), int(-2.7), int(True)",
    "(31, 7, -2, 1)",
  ],
  ["len", "len('abc'), len({1: 2}), len(range(10))", "(3, 1, 10)"],
  ["list", "list((1, 2)), list({'a': 1})", '([1, 2], ["a"])'],
  ["max", "max(1, 5, 3), max(['aa', 'b'], key=len)", '(5, "aa")'],
  ["min", "min([4, 2, 8]), min('b', 'a')", '(2, "a")'],
  ["ord", "ord('A'), ord('😿')", "(65, 128575)"],
  ["range", "list(range(5, 0, -2)), range(3)[1]", "([5, 3, 1], 1)"],
  ["repr", "repr('a'), repr([1, 'b'])", '("\\"a\\"", "[1, \\"b\\"]")'],
  ["reversed", "reversed([1, 2, 3])", "[3, 2, 1]"],
  ["set", "sorted(set([3, 1, 3]))", "[1, 3]"],
  ["sorted", "sorted([3, 1, 2], reverse=True)", "[3, 2, 1]"],
  ["str", "str(1), str('a'), str(None), str(1.0)", '("1", "a", "None", "1.0")'],
  ["tuple", "tuple([1, 2])", "(1, 2)"],
  [
    "type",
    "type(1), type([]), type(len), type(None)",
    '("int", "list", "builtin_function_or_method", "NoneType")',
  ],
  ["zip", "zip([1, 2, 3], 'ab'.elems())", '[(1, "a"), (2, "b")]'],
];

describe("universal builtins", () => {
  it("has a test case for every builtin", () => {
    const tested = new Set(CASES.map(([name]) => name));
    const untested = [...UNIVERSE.keys()].filter(
      (n) =>
        !tested.has(n) &&
        !["None", "True", "False", "fail", "print"].includes(n),
    );
    expect(untested).toEqual([]);
  });

  it.each(CASES)("%s: %s", async (_name, src, want) => {
    expect(await ev(src)).toBe(want);
  });

  it.each([
    ["fail('x', 1)", "fail: x 1"],
    ["len(1)", "len: value of type int has no len"],
    ["int('12a')", "int: invalid literal with base 10: 12a"],
    ["float('x')", "float: invalid float literal: x"],
    ["min([])", "min: empty sequence"],
    ["range(1, 2, 0)", "range: step argument must not be zero"],
    ["sorted([1, 'a'])", "sorted: string < int not implemented"],
    ["getattr(1, 'nope')", "getattr: int has no .nope field or method"],
    ["chr(-1)", "chr: Unicode code point -1 out of range (<0)"],
    ["dict(1)", "dict: got int, want iterable"],
    ["zip(1)", "zip: argument #1 is not iterable: int"],
    ["ord('ab')", "ord: string encodes 2 Unicode code points, want 1"],
  ])("%s fails with %s", async (src, want) => {
    expect(await err(src)).toBe(want);
  });

  it("prints its arguments separated by spaces", async () => {
    const out: string[] = [];
    await evalExpr({
      source: "print('a', 1, [2], sep='|')",
      print: (m) => out.push(m),
    });
    expect(out).toEqual(["a|1|[2]"]);
  });
});
