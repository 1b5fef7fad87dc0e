import { describe, expect, it } from "vitest";

import { Dict, List, StarSet } from "./collections.js";
import { evalExpr } from "./exec.js";
import { methodsOf } from "./methods.js";
import { repr } from "./value.js";

async function ev(source: string): Promise<string> {
  return repr(await evalExpr({ source, options: { set: true } }));
}

// [type, method, expression, repr of the result]; every method of every built-in type.
const CASES: [string, string, string, string][] = [
  ["string", "capitalize", "'hELLO'.capitalize()", '"Hello"'],
  ["string", "codepoint_ords", "list('aé'.codepoint_ords())", "[97, 233]"],
  ["string", "codepoints", "list('aé'.codepoints())", '["a", "é"]'],
  ["string", "count", "'banana'.count('an'), 'banana'.count('a', 2)", "(2, 2)"],
  ["string", "elem_ords", "list('ab'.elem_ords())", "[97, 98]"],
  ["string", "elems", "list('ab'.elems())", '["a", "b"]'],
  [
    "string",
    "endswith",
    "'abc'.endswith('bc'), 'abc'.endswith(('x', 'c'))",
    "(True, True)",
  ],
  ["string", "find", "'abc'.find('c'), 'abc'.find('z')", "(2, -1)"],
  ["string", "format", "'{}-{}'.format(1, 2)", '"1-2"'],
  ["string", "index", "'abc'.index('b')", "1"],
  ["string", "isalnum", "'a1'.isalnum(), 'a-1'.isalnum()", "(True, False)"],
  ["string", "isalpha", "'ab'.isalpha(), 'a1'.isalpha()", "(True, False)"],
  ["string", "isdigit", "'12'.isdigit(), ''.isdigit()", "(True, False)"],
  ["string", "islower", "'ab1'.islower(), 'Ab'.islower()", "(True, False)"],
  ["string", "isspace", "' \\t'.isspace(), ' a'.isspace()", "(True, False)"],
  [
    "string",
    "istitle",
    "'Hello World'.istitle(), 'Hello world'.istitle()",
    "(True, False)",
  ],
  ["string", "isupper", "'AB1'.isupper(), 'Ab'.isupper()", "(True, False)"],
  ["string", "join", "'-'.join(['a', 'b'])", '"a-b"'],
  ["string", "lower", "'AbC'.lower()", '"abc"'],
  ["string", "lstrip", "'  a '.lstrip(), 'xxa'.lstrip('x')", '("a ", "a")'],
  ["string", "partition", "'a=b=c'.partition('=')", '("a", "=", "b=c")'],
  ["string", "removeprefix", "'prefix_x'.removeprefix('prefix_')", '"x"'],
  ["string", "removesuffix", "'x.star'.removesuffix('.star')", '"x"'],
  ["string", "replace", "'aaa'.replace('a', 'b', 2)", '"bba"'],
  ["string", "rfind", "'abab'.rfind('ab')", "2"],
  ["string", "rindex", "'abab'.rindex('b')", "3"],
  ["string", "rpartition", "'a=b=c'.rpartition('=')", '("a=b", "=", "c")'],
  ["string", "rsplit", "'a b c'.rsplit(' ', 1)", '["a b", "c"]'],
  ["string", "rstrip", "' a  '.rstrip()", '" a"'],
  [
    "string",
    "split",
    "'a  b'.split(), 'a,b'.split(',')",
    '(["a", "b"], ["a", "b"])',
  ],
  ["string", "splitlines", "'a\\nb\\n'.splitlines(True)", '["a\\n", "b\\n"]'],
  [
    "string",
    "startswith",
    "'abc'.startswith('ab'), 'abc'.startswith('b', 1)",
    "(True, True)",
  ],
  ["string", "strip", "'\\n a \\t'.strip()", '"a"'],
  ["string", "title", "'hello wORLD'.title()", '"Hello World"'],
  ["string", "upper", "'abc'.upper()", '"ABC"'],
  ["list", "append", "[1].append(2)", "None"],
  ["list", "clear", "[1].clear()", "None"],
  ["list", "extend", "[1].extend([2])", "None"],
  ["list", "index", "[1, 2, 3].index(3), [1, 2, 1].index(1, 1)", "(2, 2)"],
  ["list", "insert", "[1].insert(0, 0)", "None"],
  ["list", "pop", "[1, 2, 3].pop(), [1, 2, 3].pop(0)", "(3, 1)"],
  ["list", "remove", "[1, 2].remove(2)", "None"],
  ["dict", "clear", "{1: 2}.clear()", "None"],
  ["dict", "get", "{1: 2}.get(1), {1: 2}.get(3, 'd')", '(2, "d")'],
  ["dict", "items", "{1: 2}.items()", "[(1, 2)]"],
  ["dict", "keys", "{1: 2, 3: 4}.keys()", "[1, 3]"],
  ["dict", "pop", "{1: 2}.pop(1), {}.pop(1, 'd')", '(2, "d")'],
  ["dict", "popitem", "{1: 2, 3: 4}.popitem()", "(1, 2)"],
  ["dict", "setdefault", "{}.setdefault('k', 1)", "1"],
  ["dict", "update", "{}.update([(1, 2)], a=3)", "None"],
  ["dict", "values", "{1: 2, 3: 4}.values()", "[2, 4]"],
  ["set", "add", "set().add(1)", "None"],
  ["set", "clear", "set([1]).clear()", "None"],
  ["set", "difference", "sorted(set([1, 2, 3]).difference([2], [3]))", "[1]"],
  ["set", "discard", "set([1]).discard(2)", "None"],
  [
    "set",
    "intersection",
    "sorted(set([1, 2, 3]).intersection([2, 3, 4]))",
    "[2, 3]",
  ],
  [
    "set",
    "issubset",
    "set([1]).issubset([1, 2]), set([3]).issubset([1])",
    "(True, False)",
  ],
  ["set", "issuperset", "set([1, 2]).issuperset([1])", "True"],
  ["set", "pop", "set([7]).pop()", "7"],
  ["set", "remove", "set([1]).remove(1)", "None"],
  [
    "set",
    "symmetric_difference",
    "sorted(set([1, 2]).symmetric_difference([2, 3]))",
    "[1, 3]",
  ],
  ["set", "union", "sorted(set([1]).union([2], [3]))", "[1, 2, 3]"],
  ["set", "update", "set([1]).update([2])", "None"],
];

describe("methods of the built-in types", () => {
  it.each([
    ["string", ""],
    ["list", new List([])],
    ["dict", new Dict()],
    ["set", new StarSet()],
  ] as const)("has a test case for every %s method", (type, sample) => {
    const tested = new Set(CASES.filter(([t]) => t === type).map(([, m]) => m));
    const untested = [...(methodsOf(sample)?.keys() ?? [])].filter(
      (m) => !tested.has(m),
    );
    expect(untested).toEqual([]);
  });

  it.each(CASES)("%s.%s: %s", async (_type, _method, src, want) => {
    expect(await ev(src)).toBe(want);
  });

  it("mutates the receiver in place", async () => {
    const src =
      "(lambda x: [x.append(2), x.extend([3]), x.insert(0, 0), x.remove(2), x][-1])([1])";
    expect(await ev(src)).toBe("[0, 1, 3]");
  });
});
