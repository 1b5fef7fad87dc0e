import { describe, expect, it } from "vitest";

import { StarlarkSyntaxError } from "./errors.js";
import { Scanner, type TokenValue } from "./scanner.js";

function scan(src: string, fstrings = false): TokenValue[] {
  const sc = new Scanner("t.star", src, fstrings);
  const out: TokenValue[] = [];
  for (;;) {
    const t = sc.next();
    out.push(t);
    if (t.tok === "EOF") return out;
  }
}

const kinds = (src: string): string =>
  scan(src)
    .map((t) => (t.tok === "IDENT" ? t.raw : t.tok))
    .join(" ");

function scanError(src: string): StarlarkSyntaxError {
  try {
    scan(src);
  } catch (err) {
    if (err instanceof StarlarkSyntaxError) return err;
    throw err;
  }
  throw new Error(`no error scanning ${JSON.stringify(src)}`);
}

const value = (src: string): unknown => scan(src)[0]!.value;

describe("scanner: indentation", () => {
  it("emits INDENT and OUTDENT around an indented block", () => {
    expect(kinds("def f():\n  pass\nx\n")).toBe(
      "def f ( ) : NEWLINE INDENT pass NEWLINE OUTDENT x NEWLINE EOF",
    );
  });

  it("closes open blocks at end of input, with a NEWLINE if the last line lacks one", () => {
    expect(kinds("if x:\n  if y:\n    pass")).toBe(
      "if x : NEWLINE INDENT if y : NEWLINE INDENT pass NEWLINE OUTDENT OUTDENT EOF",
    );
  });

  it("ignores blank lines, comment lines and newlines inside brackets", () => {
    expect(kinds("x = [1,\n   2]\n\n   # comment\ny\n")).toBe(
      "x = [ INT , INT ] NEWLINE y NEWLINE EOF",
    );
  });

  it("advances a tab to the next multiple of 8, so a tab matches eight spaces", () => {
    expect(kinds("if x:\n\tpass\n        pass\n")).toBe(
      "if x : NEWLINE INDENT pass NEWLINE pass NEWLINE OUTDENT EOF",
    );
  });

  it("counts a tab after spaces up to the same tab stop", () => {
    expect(kinds("if x:\n    \ta\n\tb\n")).toBe(
      "if x : NEWLINE INDENT a NEWLINE b NEWLINE OUTDENT EOF",
    );
  });

  it("rejects an unindent that matches no outer level", () => {
    const err = scanError("if x:\n    a\n  b\n");
    expect(err.msg).toBe("unindent does not match any outer indentation level");
    expect(err.pos.line).toBe(3);
  });

  it("joins lines with a backslash continuation and rejects a stray backslash", () => {
    expect(kinds("x = 1 + \\\n  2\n")).toBe("x = INT + INT NEWLINE EOF");
    expect(scanError("x = \\ 1").msg).toBe("stray backslash in program");
  });

  it("treats CRLF and CR as newlines", () => {
    expect(kinds("a\r\nb\rc")).toBe("a NEWLINE b NEWLINE c EOF");
  });
});

describe("scanner: tokens and positions", () => {
  it("scans every operator, longest first", () => {
    const ops =
      "+ - * / // % & | ^ << >> ~ . , = ; : < > >= <= == != += -= *= /= //= %= &= |= ^= <<= >>= **";
    expect(kinds(ops)).toBe(`${ops} EOF`);
  });

  it("recognises keywords and reserved words but not assert", () => {
    expect(kinds("and not in lambda load class is assert")).toBe(
      "and not in lambda load class is assert EOF",
    );
    expect(scan("assert")[0]!.tok).toBe("IDENT");
    expect(scan("class")[0]!.tok).toBe("class");
  });

  it("accepts Unicode letters in identifiers", () => {
    expect(scan("größe")[0]).toMatchObject({ tok: "IDENT", raw: "größe" });
  });

  it("records 1-based line and column, counting code points", () => {
    const toks = scan("a\n  𝒳x = 1");
    expect(toks[0]!.pos).toEqual({ line: 1, col: 1 });
    const eq = toks.find((t) => t.tok === "=")!;
    expect(eq.pos).toEqual({ line: 2, col: 6 });
  });

  it.each([
    ["!", "unexpected input character '!'"],
    ["$", "unexpected input character '$'"],
    [")", "unexpected ')'"],
  ])("rejects %j", (src, msg) => {
    expect(scanError(src).msg).toBe(msg);
  });
});

describe("scanner: numbers", () => {
  it.each([
    ["0", 0],
    ["123", 123],
    ["0x1F", 31],
    ["0XfF", 255],
    ["0o17", 15],
    ["0O17", 15],
    ["0b101", 5],
    ["000", 0],
    ["9007199254740991", 9007199254740991],
  ])("scans the int %s", (src, want) => {
    expect(scan(src)[0]).toMatchObject({ tok: "INT", value: want });
  });

  it("scans ints outside the safe range as bigint", () => {
    expect(value("9007199254740992")).toBe(9007199254740992n);
    expect(value("0x10000000000000000")).toBe(2n ** 64n);
    expect(value("123456789012345678901234567890")).toBe(
      123456789012345678901234567890n,
    );
  });

  it.each([
    ["1.5", 1.5],
    [".5", 0.5],
    ["1.", 1],
    ["1e3", 1000],
    ["1E-3", 0.001],
    ["0.0", 0],
    ["00.5", 0.5],
    ["0e1", 0],
    ["1.5e+2", 150],
  ])("scans the float %s", (src, want) => {
    expect(scan(src)[0]).toMatchObject({ tok: "FLOAT", value: want });
  });

  it.each([
    ["0755", "obsolete form of octal literal; use 0o755"],
    ["09", "invalid int literal"],
    ["0x", "invalid hex literal"],
    ["0o8", "invalid octal literal"],
    ["0b2", "invalid binary literal"],
    ["1e+", "invalid float literal"],
    ["1e999", "invalid float literal"],
  ])("rejects %s", (src, msg) => {
    expect(scanError(src).msg).toBe(msg);
  });

  it("scans a lone dot as DOT", () => {
    expect(kinds("a.b")).toBe("a . b EOF");
  });
});

describe("scanner: strings and bytes", () => {
  it.each([
    [`"abc"`, "abc"],
    [`'abc'`, "abc"],
    [`"a\\nb\\t\\\\"`, "a\nb\t\\"],
    [`"\\a\\b\\f\\r\\v\\'\\""`, "\x07\b\f\r\v'\""],
    [`"\\x41\\101\\0"`, "AA\0"],
    [`"\\u00e9\\U0001F600"`, "é😀"],
    [`"line\\\ncont"`, "linecont"],
    [`'''a\n'b'\n'''`, "a\n'b'\n"],
    [`"""x""y"""`, 'x""y'],
    [`r"\\n\\x"`, "\\n\\x"],
    [`r'a\\'b'`, "a\\'b"],
    [`"é"`, "é"],
  ])("decodes %s", (src, want) => {
    expect(scan(src)[0]).toMatchObject({ tok: "STRING", value: want });
  });

  it("decodes bytes literals to UTF-8 bytes with raw escapes", () => {
    const t = scan(`b"a\\xff\\377é"`)[0]!;
    expect(t.tok).toBe("BYTES");
    expect([...(t.value as Uint8Array)]).toEqual([
      0x61, 0xff, 0xff, 0xc3, 0xa9,
    ]);
    expect([...(scan(`rb"\\x"`)[0]!.value as Uint8Array)]).toEqual([
      0x5c, 0x78,
    ]);
  });

  it.each([
    [`"\\q"`, "invalid escape sequence \\q"],
    [
      `"\\xff"`,
      "non-ASCII hex escape \\xff (use \\u00FF for the UTF-8 encoding of U+00FF)",
    ],
    [
      `"\\377"`,
      "non-ASCII octal escape \\377 (use \\u00FF for the UTF-8 encoding of U+00FF)",
    ],
    [`"\\x-0"`, "invalid escape sequence \\x-0"],
    [`"\\x4"`, "truncated escape sequence \\x4"],
    [`"\\ud800"`, "invalid Unicode code point U+D800"],
    [`"\\U00110000"`, "code point out of range: \\U00110000 (max \\U00110000)"],
    [`b"\\400"`, "invalid escape sequence \\400"],
    [`"abc`, "unexpected EOF in string"],
    [`"ab\nc"`, "unexpected newline in string"],
    [`'''abc`, "unexpected EOF in string"],
  ])("rejects %s", (src, msg) => {
    expect(scanError(src).msg).toBe(msg);
  });

  it("reads upper-case prefixes and f without the extension as identifiers", () => {
    expect(kinds(`R"x"`)).toBe("R STRING EOF");
    expect(kinds(`f"x"`)).toBe("f STRING EOF");
    expect(scan(`f"x"`, true)[0]!.tok).toBe("FSTRING");
    expect(scan(`rf"x"`, true)[0]!.tok).toBe("FSTRING");
  });
});
