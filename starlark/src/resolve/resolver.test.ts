import { describe, expect, it } from "vitest";

import type {
  Def,
  Expr,
  File,
  FileOptions,
  Ident,
  Stmt,
} from "../syntax/ast.js";
import { DEFAULT_OPTIONS, parse, parseExpr } from "../syntax/parser.js";
import { resolve, resolveExpr } from "./resolver.js";
import { nearest } from "./spell.js";

const UNIVERSE = new Set([
  "len",
  "print",
  "range",
  "set",
  "None",
  "True",
  "False",
  "float",
]);

function resolved(src: string, options: Partial<FileOptions> = {}): File {
  const file = parse("t.star", src, options);
  const errors = resolve(
    file,
    (n) => n === "M",
    (n) => UNIVERSE.has(n),
  );
  expect(errors.map((e) => e.message)).toEqual([]);
  return file;
}

function errorsOf(src: string, options: Partial<FileOptions> = {}): string[] {
  const file = parse("t.star", src, options);
  return resolve(
    file,
    (n) => n === "M",
    (n) => UNIVERSE.has(n),
  ).map((e) => `${e.pos.line}: ${e.msg}`);
}

/** Every Ident in the tree named `name`, in source order. */
function idents(
  node: unknown,
  name: string,
  out: Ident[] = [],
  seen = new Set<unknown>(),
): Ident[] {
  if (node === null || typeof node !== "object" || seen.has(node)) return out;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const n of node) idents(n, name, out, seen);
    return out;
  }
  const rec = node as Record<string, unknown>;
  if (rec.kind === "Ident" && rec.name === name) out.push(node as Ident);
  for (const [k, v] of Object.entries(rec)) {
    // Walk syntax only: bindings and resolver lists point back into the tree, and the `from`
    // names of a load are not variables.
    if (!["binding", "locals", "freevars", "globals", "from"].includes(k))
      idents(v, name, out, seen);
  }
  return out;
}

const scopes = (file: File, name: string): string[] =>
  idents(file.stmts, name).map(
    (id) => `${id.binding?.scope}:${id.binding?.index}`,
  );

const def = (s: Stmt | Expr | undefined): Def => {
  if (s?.kind !== "Def") throw new Error("not a def");
  return s;
};

describe("resolver: scopes", () => {
  it("numbers module-level names as globals in order of first binding", () => {
    const file = resolved("a = 1\ndef f(): return b\nb = a\n");
    expect(file.globals.map((g) => `${g.name}:${g.scope}:${g.index}`)).toEqual([
      "a:global:0",
      "f:global:1",
      "b:global:2",
    ]);
    expect(scopes(file, "b")).toEqual(["global:2", "global:2"]);
  });

  it("makes names bound anywhere in a function local, even when used earlier", () => {
    const file = resolved("x = 1\ndef f():\n  print(x)\n  x = 2\n");
    expect(scopes(file, "x")).toEqual(["global:0", "local:0", "local:0"]);
  });

  it("puts parameters first: named, keyword-only, *args, **kwargs; bare * takes no slot", () => {
    const file = resolved(
      "def f(a, b=1, *args, c, d=2, **kw):\n  e = 1\ndef g(a, *, k):\n  pass\n",
    );
    const f = def(file.stmts[0]).function;
    expect(f.locals.map((l) => l.name)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "args",
      "kw",
      "e",
    ]);
    expect(f).toMatchObject({
      numParams: 6,
      numKwonlyParams: 2,
      hasVarargs: true,
      hasKwargs: true,
    });
    const g = def(file.stmts[1]).function;
    expect(g.locals.map((l) => l.name)).toEqual(["a", "k"]);
    expect(g).toMatchObject({
      numParams: 2,
      numKwonlyParams: 1,
      hasVarargs: false,
      hasKwargs: false,
    });
  });

  it("turns a captured local into a cell and gives the inner function a free variable", () => {
    const file = resolved(
      "def outer():\n  x = 1\n  def inner():\n    return x\n  return inner\n",
    );
    const outer = def(file.stmts[0]).function;
    const inner = def(outer.body[1]).function;
    expect(outer.locals.map((l) => `${l.name}:${l.scope}`)).toEqual([
      "x:cell",
      "inner:local",
    ]);
    expect(inner.freevars).toEqual([outer.locals[0]]);
    expect(scopes(file, "x")).toEqual(["cell:0", "free:0"]);
  });

  it("threads a free variable through every intervening function", () => {
    const file = resolved(
      "def a():\n  x = 1\n  def b():\n    def c():\n      return x\n    return c\n  return b\n",
    );
    const fa = def(file.stmts[0]).function;
    const fb = def(fa.body[1]).function;
    const fc = def(fb.body[0]).function;
    expect(fb.freevars).toEqual([fa.locals[0]]);
    expect(fc.freevars.map((b) => `${b.scope}:${b.index}`)).toEqual(["free:0"]);
    expect(fa.locals[0]!.scope).toBe("cell");
  });

  it("captures lambda parameters and resolves defaults in the enclosing scope", () => {
    const file = resolved("def f(y):\n  return lambda x=y: x + y\n");
    const f = def(file.stmts[0]).function;
    expect(f.locals[0]!.scope).toBe("cell");
    // param y, the lambda body's y (a free variable of the lambda), the default's y
    expect(scopes(file, "y")).toEqual(["cell:0", "free:0", "cell:0"]);
  });

  it("resolves predeclared and universal names", () => {
    const file = resolved("M(len)\n");
    expect(scopes(file, "M")).toEqual(["predeclared:0"]);
    expect(scopes(file, "len")).toEqual(["universal:0"]);
  });

  it("lets a global shadow a universal name everywhere in the module", () => {
    const file = resolved("a = len\nlen = 1\n");
    expect(scopes(file, "len")).toEqual(["global:1", "global:1"]);
  });

  it("keeps top-level comprehension variables in the file's locals", () => {
    const file = resolved("y = [x for x in range(3) if x]\n");
    expect(file.locals.map((l) => `${l.name}:${l.scope}:${l.index}`)).toEqual([
      "x:local:0",
    ]);
    expect(scopes(file, "x")).toEqual(["local:0", "local:0", "local:0"]);
  });

  it("makes a top-level comprehension variable a cell when a lambda captures it", () => {
    const file = resolved("fs = [lambda: x for x in range(3)]\n");
    expect(file.locals[0]!.scope).toBe("cell");
  });

  it("resolves the first for clause's operand outside the comprehension", () => {
    const file = resolved("x = [1]\ny = [x for x in x]\n");
    expect(scopes(file, "x")).toEqual([
      "global:0",
      "local:0",
      "local:0",
      "global:0",
    ]);
  });

  it("binds load names file-locally, or globally with loadbindsglobally", () => {
    const local = resolved('load("m", "a")\nb = a\n');
    expect(local.locals.map((l) => l.name)).toEqual(["a"]);
    expect(scopes(local, "a")).toEqual(["local:0", "local:0"]);
    const global = resolved('load("m", "a")\nb = a\n', {
      loadbindsglobally: true,
    });
    expect(global.globals.map((g) => g.name)).toEqual(["a", "b"]);
  });

  it("resolves names inside f-string fields", () => {
    const file = resolved('n = 1\ns = f"{n + 1}"\n', { fstrings: true });
    expect(scopes(file, "n")).toEqual(["global:0", "global:0"]);
  });
});

describe("resolver: errors", () => {
  it.each([
    ["x = y\n", "1: undefined: y"],
    ["hello = 1\nprint(hollo)\n", "2: undefined: hollo (did you mean hello?)"],
    ["x = 1\nx = 2\n", "2: cannot reassign global x declared at t.star:1:1"],
    ["x = 1\nx += 2\n", "2: cannot reassign global x declared at t.star:1:1"],
    [
      'load("m", "x")\nx = 1\n',
      "2: cannot reassign local x declared at t.star:1:12",
    ],
    ['load("m", "x")\nload("m", "x")\n', "2: cannot reassign top-level x"],
    ["if M:\n  pass\n", "1: if statement not within a function"],
    ["for x in M:\n  pass\n", "1: for loop not within a function"],
    [
      "def f():\n  while M:\n    pass\n",
      "2: this Starlark dialect does not support while loops",
    ],
    ["return\n", "1: return statement not within a function"],
    ["break\n", "1: break not in a loop"],
    [
      "def f():\n  for x in M:\n    def g():\n      continue\n",
      "4: continue not in a loop",
    ],
    ['def f():\n  load("m", "x")\n', "2: load statement within a function"],
    [
      'load("m", "_x")\n',
      "1: load: names with leading underscores are not exported: _x",
    ],
    ['load("m", "")\n', "1: load: empty identifier"],
    ["1 = 2\n", "1: can't assign to literal"],
    ["f() = 2\n", "1: can't assign to callexpr"],
    [
      "def f():\n  a, b += 1\n",
      "2: can't use tuple expression in augmented assignment",
    ],
    [
      "def f():\n  [a] += 1\n",
      "2: can't use list expression in augmented assignment",
    ],
    ["M(x=1, 2)\n", "1: positional argument may not follow named"],
    ["M(*M, 2)\n", "1: positional argument may not follow *args"],
    ["M(**M, 2)\n", "1: positional argument may not follow **kwargs"],
    ["M(*M, x=2)\n", "1: keyword argument may not follow *args"],
    ["M(**M, x=2)\n", "1: keyword argument may not follow **kwargs"],
    ["M(**M, *M)\n", "1: *args may not follow **kwargs"],
    ["M(*M, *M)\n", "1: multiple *args not allowed"],
    ["M(**M, **M)\n", "1: multiple **kwargs not allowed"],
    ["M(a=1, a=2)\n", '1: keyword argument "a" is repeated'],
    ["def f(x=1, y): pass\n", "1: required parameter may not follow optional"],
    ["def f(**k, x): pass\n", "1: required parameter may not follow **k"],
    ["def f(**k, x=1): pass\n", "1: optional parameter may not follow **k"],
    ["def f(**k, *a): pass\n", "1: * parameter may not follow **k"],
    ["def f(*a, *b): pass\n", "1: multiple * parameters not allowed"],
    ["def f(**a, **b): pass\n", "1: multiple ** parameters not allowed"],
    [
      "def f(*): pass\n",
      "1: bare * must be followed by keyword-only parameters",
    ],
    ["def f(a, a): pass\n", "1: duplicate parameter: a"],
    ["def f(a, *a): pass\n", "1: duplicate parameter: a"],
    ["x = set()\n", "1: this Starlark dialect does not support sets"],
  ])("reports %j", (src, want) => {
    expect(errorsOf(src)).toEqual([want]);
  });

  it("reports an undefined Python built-in with the Starlark way", () => {
    expect(errorsOf("x = sum([1])\n")).toEqual([
      "1: undefined: sum (Starlark has no sum(); add in a for loop)",
    ]);
    expect(errorsOf("x = isinstance(1, int)\n")[0]).toMatch(
      /^1: undefined: isinstance \(Starlark has no isinstance\(\); compare type\(x\) == "int"/,
    );
    expect(errorsOf("x = map(len, [])\n")[0]).toContain("list comprehension");
  });

  it("does not suggest anything for a name with no near candidate", () => {
    expect(errorsOf("def f(abc):\n  print(goodbye)\n")).toEqual([
      "2: undefined: goodbye",
    ]);
  });

  it("collects every error rather than stopping at the first, undefined names last as in starlark-go", () => {
    expect(errorsOf("a = b\nbreak\nc = d\n")).toEqual([
      "2: break not in a loop",
      "1: undefined: b",
      "3: undefined: d",
    ]);
  });

  it("honours the dialect options", () => {
    expect(
      errorsOf("if M:\n  x = set()\nwhile M:\n  pass\nx = 2\n", {
        toplevelcontrol: true,
        while: true,
        set: true,
        globalreassign: true,
      }),
    ).toEqual([]);
    expect(errorsOf("while M:\n  pass\n", { while: true })).toEqual([
      "1: while loop not within a function",
    ]);
    expect(
      errorsOf("if M:\n  load('m', 'x')\n", { toplevelcontrol: true }),
    ).toEqual(["2: load statement within a conditional"]);
    expect(
      errorsOf("for a in M:\n  load('m', 'x')\n", { toplevelcontrol: true }),
    ).toEqual(["2: load statement within a loop"]);
  });

  it("with globalreassign, requires a top-level name to be bound before use", () => {
    expect(errorsOf("y = x\nx = 1\n", { globalreassign: true })).toEqual([
      "1: undefined: x",
    ]);
    expect(errorsOf("y = x\nx = 1\n")).toEqual([]);
  });

  it("limits a call to 255 positional arguments", () => {
    const args = Array.from({ length: 256 }, () => "1").join(", ");
    expect(errorsOf(`M(${args})\n`)).toEqual([
      "1: 256 positional arguments in call, limit is 255",
    ]);
  });
});

describe("spell.nearest", () => {
  it("finds the nearest candidate ignoring case and underscores, within half the length", () => {
    expect(nearest("hollo", ["abc", "hello", "help"])).toBe("hello");
    expect(nearest("FOO_BAR", ["foobar"])).toBe("foobar");
    expect(nearest("froze", ["freeze", "fail"])).toBe("freeze");
    expect(nearest("goodbye", ["hello", "print"])).toBe("");
  });
});

describe("resolveExpr", () => {
  it("resolves a lone expression, returning its comprehension locals and errors", () => {
    const e = parseExpr("e.star", "[x + M for x in len(y)]");
    const { locals, errors } = resolveExpr(
      e,
      "e.star",
      DEFAULT_OPTIONS,
      (n) => n === "M",
      (n) => UNIVERSE.has(n),
    );
    expect(locals.map((l) => l.name)).toEqual(["x"]);
    expect(errors.map((err) => err.message)).toEqual([
      "e.star:1:21: undefined: y",
    ]);
  });
});
