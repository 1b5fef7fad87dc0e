import { describe, expect, it } from "vitest";

import { resolve } from "../resolve/resolver.js";
import { StarlarkSyntaxError } from "./errors.js";
import { ALL_OPTIONS, parse } from "./parser.js";

// Deterministic pseudo-random inputs built from Starlark fragments: the scanner, parser and
// resolver must either succeed or report a StarlarkSyntaxError, never crash or hang.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const FRAGMENTS = [
  "x",
  "y",
  "f",
  " ",
  " ",
  "\n",
  "\n  ",
  "\t",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  ",",
  ":",
  ";",
  "=",
  "==",
  "+",
  "-",
  "*",
  "**",
  "/",
  "//",
  "%",
  "<",
  ">=",
  "!=",
  "|",
  "&",
  "^",
  "~",
  "<<",
  ".",
  "1",
  "0x1F",
  "1.5",
  "1e3",
  "'s'",
  '"t"',
  "'''u\n'''",
  'b"\\x00"',
  'f"{x}"',
  'f"{',
  "r'\\n'",
  "def",
  "lambda",
  "if",
  "elif",
  "else",
  "for",
  "in",
  "not",
  "and",
  "or",
  "while",
  "return",
  "break",
  "continue",
  "pass",
  "load",
  "class",
  "is",
  "#c\n",
  "\\\n",
  "!",
];

function randomProgram(rand: () => number): string {
  let src = "";
  const n = 1 + Math.floor(rand() * 40);
  for (let i = 0; i < n; i++)
    src += FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)];
  return src;
}

describe("parser robustness", () => {
  it("either parses and resolves or throws a StarlarkSyntaxError, for 3000 random inputs", () => {
    const rand = prng(42);
    let parsed = 0;
    for (let i = 0; i < 3000; i++) {
      const src = randomProgram(rand);
      try {
        const file = parse("r.star", src, ALL_OPTIONS);
        resolve(
          file,
          () => false,
          () => false,
        );
        parsed++;
      } catch (err) {
        if (!(err instanceof StarlarkSyntaxError))
          throw new Error(`crash on ${JSON.stringify(src)}: ${String(err)}`, {
            cause: err,
          });
      }
    }
    expect(parsed).toBeGreaterThan(0);
  });

  it("parses deeply nested expressions", () => {
    const depth = 200;
    expect(() =>
      parse("d.star", `x = ${"(".repeat(depth)}1${")".repeat(depth)}\n`),
    ).not.toThrow();
    expect(() => parse("d.star", `x = ${"-".repeat(depth)}1\n`)).not.toThrow();
  });
});
