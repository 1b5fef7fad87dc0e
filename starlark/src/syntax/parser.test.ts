import { describe, expect, it } from "vitest";

import type {
  CallArg,
  CompClause,
  Expr,
  FStringField,
  Param,
  Stmt,
} from "./ast.js";
import { StarlarkSyntaxError } from "./errors.js";
import { ALL_OPTIONS, parse, parseExpr } from "./parser.js";

// A compact rendering of the tree, fully parenthesised, so shapes are easy to assert.
function show(e: Expr): string {
  switch (e.kind) {
    case "Ident":
      return e.name;
    case "Literal":
      return e.token === "bytes"
        ? `b[${[...e.value].join(",")}]`
        : e.token === "string"
          ? JSON.stringify(e.value)
          : String(e.value);
    case "FString":
      return `f(${e.parts.map((p) => (typeof p === "string" ? JSON.stringify(p) : showField(p))).join(" ")})`;
    case "Unary":
      return `(${e.op} ${show(e.x)})`;
    case "Binary":
      return `(${show(e.x)} ${e.op} ${show(e.y)})`;
    case "Call":
      return `${show(e.fn)}(${e.args.map(showArg).join(", ")})`;
    case "Index":
      return `${show(e.x)}[${show(e.y)}]`;
    case "Slice":
      return `${show(e.x)}[${[e.lo, e.hi, e.step].map((x) => (x === null ? "" : show(x))).join(":")}]`;
    case "Dot":
      return `${show(e.x)}.${e.name}`;
    case "List":
      return `[${e.elems.map(show).join(", ")}]`;
    case "Tuple":
      return `tuple(${e.elems.map(show).join(", ")})`;
    case "Dict":
      return `{${e.entries.map((d) => `${show(d.key)}: ${show(d.value)}`).join(", ")}}`;
    case "ListComp":
      return `[${show(e.body)} ${e.clauses.map(showClause).join(" ")}]`;
    case "DictComp":
      return `{${show(e.entry.key)}: ${show(e.entry.value)} ${e.clauses.map(showClause).join(" ")}}`;
    case "Lambda":
      return `(lambda ${e.function.params.map(showParam).join(", ")}: ${show(e.body)})`;
    case "Paren":
      return `paren(${show(e.x)})`;
    case "Cond":
      return `(${show(e.t)} if ${show(e.cond)} else ${show(e.f)})`;
  }
}
const showField = (f: FStringField): string =>
  `{${show(f.expr)}${f.conversion === null ? "" : `!${f.conversion}`}${f.spec === null ? "" : `:${f.spec}`}}`;
const showArg = (a: CallArg): string =>
  a.kind === "PositionalArg"
    ? show(a.value)
    : a.kind === "KeywordArg"
      ? `${a.name}=${show(a.value)}`
      : `${a.kind === "StarArg" ? "*" : "**"}${show(a.value)}`;
const showClause = (c: CompClause): string =>
  c.kind === "ForClause"
    ? `for ${show(c.vars)} in ${show(c.x)}`
    : `if ${show(c.cond)}`;
const showParam = (p: Param): string =>
  p.kind === "NamedParam"
    ? p.default === null
      ? p.name.name
      : `${p.name.name}=${show(p.default)}`
    : p.kind === "StarParam"
      ? `*${p.name?.name ?? ""}`
      : `**${p.name.name}`;

function showStmt(s: Stmt): string {
  switch (s.kind) {
    case "Assign":
      return `${show(s.lhs)} ${s.op} ${show(s.rhs)}`;
    case "ExprStmt":
      return show(s.x);
    case "Branch":
      return s.token;
    case "Return":
      return s.result === null ? "return" : `return ${show(s.result)}`;
    case "Def":
      return `def ${s.name.name}(${s.function.params.map(showParam).join(", ")}) {${s.function.body.map(showStmt).join("; ")}}`;
    case "For":
      return `for ${show(s.vars)} in ${show(s.x)} {${s.body.map(showStmt).join("; ")}}`;
    case "While":
      return `while ${show(s.cond)} {${s.body.map(showStmt).join("; ")}}`;
    case "If":
      return `if ${show(s.cond)} {${s.trueBody.map(showStmt).join("; ")}} else {${s.falseBody.map(showStmt).join("; ")}}`;
    case "Load":
      return `load ${s.module.value} ${s.to.map((t, i) => `${t.name}=${s.from[i]!.name}`).join(" ")}`;
  }
}

const expr = (src: string, fstrings = false): string =>
  show(parseExpr("t.star", src, { fstrings }));
const stmts = (src: string): string =>
  parse("t.star", src).stmts.map(showStmt).join(" | ");

function parseError(src: string, options = {}): StarlarkSyntaxError {
  try {
    parse("t.star", src, options);
  } catch (err) {
    if (err instanceof StarlarkSyntaxError) return err;
    throw err;
  }
  throw new Error(`no error parsing ${JSON.stringify(src)}`);
}

describe("parser: expressions", () => {
  it.each([
    ["1 + 2 * 3", "(1 + (2 * 3))"],
    ["1 - 2 - 3", "((1 - 2) - 3)"],
    ["a or b and not c", "(a or (b and (not c)))"],
    ["not a == b", "(not (a == b))"],
    ["a | b ^ c & d << 1 + 2", "(a | (b ^ (c & (d << (1 + 2)))))"],
    ["a // b % c / d", "(((a // b) % c) / d)"],
    ["-x.y[0]", "(- x.y[0])"],
    ["~+-1", "(~ (+ (- 1)))"],
    ["x in y", "(x in y)"],
    ["x not in y", "(x not in y)"],
    ["a if b else c if d else e", "(a if b else (c if d else e))"],
    ["f(1, *a, k=2, **kw)", "f(1, *a, k=2, **kw)"],
    ["f()(x)", "f()(x)"],
    ["f(a, )", "f(a)"],
    ["x[1:2]", "x[1:2:]"],
    ["x[::2]", "x[::2]"],
    ["x[:]", "x[::]"],
    ["x[1, 2:]", "x[tuple(1, 2)::]"],
    ["x[1,2]", "x[tuple(1, 2)]"],
    ["a.b.c", "a.b.c"],
    ["[]", "[]"],
    ["[1, 2,]", "[1, 2]"],
    ["()", "tuple()"],
    ["(1)", "paren(1)"],
    ["(1,)", "paren(tuple(1))"],
    ["1, 2", "tuple(1, 2)"],
    ["{}", "{}"],
    ["{1: 2, 3: 4,}", "{1: 2, 3: 4}"],
    ["[x for x in y if x for z in x]", "[x for x in y if x for z in x]"],
    ["[x for a, b in y]", "[x for tuple(a, b) in y]"],
    ["{k: v for k, v in d.items()}", "{k: v for tuple(k, v) in d.items()}"],
    ["lambda: 1", "(lambda : 1)"],
    ["lambda x, y=1, *a, **k: x", "(lambda x, y=1, *a, **k: x)"],
    ["lambda x: a if x else b", "(lambda x: (a if x else b))"],
    ["'a' 'b'", '"a"'],
  ])("parses %s", (src, want) => {
    if (src === "'a' 'b'") {
      expect(() => parseExpr("t.star", src)).toThrow(
        /got string literal after expression, want EOF/,
      );
      return;
    }
    expect(expr(src)).toBe(want);
  });

  it("parses big and float literals with their values", () => {
    expect(expr("12345678901234567890")).toBe("12345678901234567890");
    const lit = parseExpr("t.star", "12345678901234567890");
    expect(lit.kind === "Literal" && typeof lit.value).toBe("bigint");
    expect(expr("1.5e3")).toBe("1500");
    expect(expr('b"\\x01a"')).toBe("b[1,97]");
  });

  it("records positions of operators, calls and brackets", () => {
    const e = parseExpr("t.star", "a +\\\n  f(x)[0]");
    expect(e).toMatchObject({
      kind: "Binary",
      pos: { line: 1, col: 1 },
      opPos: { line: 1, col: 3 },
    });
    if (e.kind !== "Binary") throw new Error("not binary");
    expect(e.y).toMatchObject({
      kind: "Index",
      pos: { line: 2, col: 3 },
      lbrack: { line: 2, col: 7 },
    });
    if (e.y.kind !== "Index") throw new Error("not index");
    expect(e.y.x).toMatchObject({
      kind: "Call",
      lparen: { line: 2, col: 4 },
      rparen: { line: 2, col: 6 },
    });
  });
});

describe("parser: statements", () => {
  it.each([
    ["x = 1\n", "x = 1"],
    ["x += 1; y -= 2;\n", "x += 1 | y -= 2"],
    ["a, b = b, a\n", "tuple(a, b) = tuple(b, a)"],
    ["(a, b,) = 1, 2\n", "paren(tuple(a, b)) = tuple(1, 2)"],
    ["x.y[0] //= 2\n", "x.y[0] //= 2"],
    ["for x in 1, 2, 3:\n  pass\n", "for x in tuple(1, 2, 3) {pass}"],
    [
      "for k, v in d.items(): print(k)\n",
      "for tuple(k, v) in d.items() {print(k)}",
    ],
    ["while x:\n  break\n  continue\n", "while x {break; continue}"],
    [
      "if a:\n  x\nelif b:\n  y\nelse:\n  z\n",
      "if a {x} else {if b {y} else {z}}",
    ],
    [
      "def f(a, b=1, *args, c, **kw):\n  return a\n",
      "def f(a, b=1, *args, c, **kw) {return a}",
    ],
    ["def f(*, a): return\n", "def f(*, a) {return}"],
    ['load("m", "a", b="c")\n', "load m a=a b=c"],
    ['load("m", "x",)\n', "load m x=x"],
    ["f()", "f()"],
  ])("parses %j", (src, want) => {
    expect(stmts(src)).toBe(want);
  });

  it("gives a lambda a Function whose body returns the expression", () => {
    const e = parseExpr("t.star", "lambda x: x + 1");
    expect(e.kind).toBe("Lambda");
    if (e.kind !== "Lambda") return;
    expect(e.function.name).toBe("lambda");
    expect(e.function.body).toMatchObject([
      { kind: "Return", result: { kind: "Binary" } },
    ]);
  });

  it("gives a def a Function with empty resolver annotations", () => {
    const s = parse("t.star", "def f(x):\n  pass\n").stmts[0]!;
    expect(s).toMatchObject({
      kind: "Def",
      function: {
        name: "f",
        locals: [],
        freevars: [],
        hasVarargs: false,
        hasKwargs: false,
        numKwonlyParams: 0,
      },
    });
  });

  it("records the file name, options and statement positions", () => {
    const f = parse("dir/t.star", "\n\nx = 1\n", { set: true });
    expect(f.path).toBe("dir/t.star");
    expect(f.options.set).toBe(true);
    expect(f.options.while).toBe(false);
    expect(f.stmts[0]!.pos).toEqual({ line: 3, col: 1 });
  });
});

describe("parser: errors", () => {
  it.each([
    ["x = 1 +\n2\n", "got newline, want primary expression", 1],
    ["def f : pass\n", "got ':', want '('", 1],
    ["def pass(): pass\n", "not an identifier", 1],
    ["f(a=1, *, b=2)\n", "got ',', want primary expression", 1],
    ["_ = {x for y in z}\n", "got for, want ':'", 1],
    ["_ = [x for x in 1, 2]\n", "got ',', want ']', for, or if", 1],
    ["_ = a + b not c\n", "got identifier, want in", 1],
    ["f(1+2 = 3)\n", "keyword argument must have form name=expr", 1],
    ["print(1, 2\n", "got end of file, want ')'", 2],
    ["_ = a if b\n", "conditional expression without else clause", 1],
    ['load("")\n', "load statement must import at least 1 symbol", 1],
    [
      'load("", 1)\n',
      'load operand must be "name" or localname="name" (got int literal)',
      1,
    ],
    [
      "load(1, 2)\n",
      "first operand of load statement must be a string literal",
      1,
    ],
    [
      'load("a", x)\n',
      'load operand must be "x" or x="originalname" (want \'=\' after x)',
      1,
    ],
    [
      'load("a", x2=x)\n',
      'original name of loaded symbol must be quoted: x2="originalname"',
      1,
    ],
    ["load = 1\n", "got '=', want '('", 1],
    ["print 1 2\n", "got int literal, want newline", 1],
    ["a, b, = 1, 2\n", "unparenthesized tuple with trailing comma", 1],
    ["x[1, 2,:]\n", "got ':', want primary expression", 1],
    ["a = max(1))\n", "unexpected ')'", 1],
    ["if x:\npass\n", "got pass, want indent", 2],
  ])("rejects %j with starlark-go's message", (src, msg, line) => {
    const err = parseError(src);
    expect(err.msg).toBe(msg);
    expect(err.pos.line).toBe(line);
    expect(err.message).toBe(`t.star:${err.pos.line}:${err.pos.col}: ${msg}`);
  });

  it.each([
    [
      "0 == 1 == 2\n",
      "== does not associate with == (use parens)",
      "chained comparisons",
    ],
    [
      "0 <= i < n\n",
      "<= does not associate with < (use parens)",
      "a < b and b < c",
    ],
    ["class A:\n  pass\n", "got class, want primary expression", "no classes"],
    ["import os\n", "got import, want primary expression", "load("],
    [
      "from x import y\n",
      "got from, want primary expression",
      "no import statement",
    ],
    [
      "try:\n  f()\nexcept:\n  pass\n",
      "got try, want primary expression",
      "fail(msg)",
    ],
    [
      "raise ValueError()\n",
      "got raise, want primary expression",
      "call fail(msg)",
    ],
    ["if x is None:\n  pass\n", "got is, want ':'", "compare with =="],
    ["x = 2 ** 3\n", "got '**', want newline", "no ** power operator"],
    [
      "a, *rest = x\n",
      "got '*', want primary expression",
      "a, rest = x[0], x[1:]",
    ],
    ["x = [*a, *b]\n", "got '*', want primary expression", "a + b"],
    [
      "x = {**a, **b}\n",
      "got '**', want primary expression",
      "dict(a, **b) or a | b",
    ],
    [
      "def f():\n  global x\n",
      "got global, want primary expression",
      "no global statement",
    ],
    [
      "def f():\n  nonlocal x\n",
      "got nonlocal, want primary expression",
      "no nonlocal statement",
    ],
    [
      "with open(f) as g:\n  pass\n",
      "got with, want primary expression",
      "no with statement",
    ],
    [
      "def f():\n  yield 1\n",
      "got yield, want primary expression",
      "no generators",
    ],
    ["del x[0]\n", "got del, want primary expression", "dict.pop"],
    ["def f(x: int):\n  pass\n", "got ':', want ')'", "no type annotations"],
    ["def f(x) -> int:\n  pass\n", "got '-', want ':'", "no type annotations"],
    ["x: int = 1\n", "got ':', want newline", "x = 1"],
    [
      "def f():\n  for x in y:\n    pass\n  else:\n    pass\n",
      "got else, want primary expression",
      "flag variable",
    ],
    [
      "def f():\n  while x:\n    pass\n  else:\n    pass\n",
      "got else, want primary expression",
      "flag variable",
    ],
  ])(
    "keeps starlark-go's message for %j and appends a hint",
    (src, msg, hint) => {
      const err = parseError(src);
      expect(err.msg.startsWith(msg)).toBe(true);
      expect(err.msg.slice(msg.length)).toMatch(/^ \(Starlark .*\)$/);
      expect(err.msg).toContain(hint);
    },
  );

  it("parses every testdata-like construct with all options on", () => {
    expect(() =>
      parse("t.star", "s = set([1])\nwhile s:\n  s.pop()\n", ALL_OPTIONS),
    ).not.toThrow();
  });
});

describe("parser: f-strings (extension)", () => {
  it.each([
    [
      'f"{name} has {len(items)} items"',
      'f({name} " has " {len(items)} " items")',
    ],
    ['f"x{{y}}z"', 'f("x{y}z")'],
    ['f"{a!r} {b!s} {c:>10}"', 'f({a!r} " " {b!s} " " {c:>10})'],
    ["f\"{d['k']}\"", 'f({d["k"]})'],
    ['f"{a != b}"', "f({(a != b)})"],
    ['f"{ x + 1 }"', "f({(x + 1)})"],
    ['f"{x:.2f}"', "f({x:.2f})"],
    ['f"{f(1, 2)[0]}\\n"', 'f({f(1, 2)[0]} "\\n")'],
    ['rf"\\n{x}"', 'f("\\\\n" {x})'],
    ["f'''{\n x\n}'''", "f({x})"],
    ['f""', "f()"],
    ['f"{x = }"', 'f("x = " {x!r})'],
    ['f"{a.b=:>5}"', 'f("a.b=" {a.b:>5})'],
    ['f"{a == b}"', "f({(a == b)})"],
  ])("parses %s", (src, want) => {
    expect(expr(src, true)).toBe(want);
  });

  it("positions a field's expression inside the literal", () => {
    const e = parseExpr("t.star", 'x + f"ab{c}"', { fstrings: true });
    if (e.kind !== "Binary" || e.y.kind !== "FString") throw new Error("shape");
    const field = e.y.parts[1] as FStringField;
    expect(field.expr.pos).toEqual({ line: 1, col: 10 });
  });

  it.each([
    ['f"{}"', "f-string: empty expression not allowed"],
    ['f"{x"', "f-string: expecting '}'"],
    ['f"x}"', "f-string: single '}' is not allowed"],
    ['f"{x!a}"', "f-string: invalid conversion character: expected 's' or 'r'"],
    ['f"{x:{y}}"', "f-string: nested replacement fields are not supported"],
    ['f"{1 +}"', "got ')', want primary expression"],
  ])("rejects %s", (src, msg) => {
    expect(parseError(src, { fstrings: true }).msg).toBe(msg);
  });

  it('is off by default, so f"..." is a name followed by a string', () => {
    expect(parseError('x = f"{y}"\n').msg).toBe(
      "got string literal, want newline",
    );
  });
});
