import { describe, expect, it } from "vitest";

import { readChunks, unquoteGo } from "./chunked-file.js";

const FILE = [
  "a = 1",
  'b = 2 ### "undefined: b"',
  "---",
  "# option:set option:while",
  "c ### `got '\\*', want`",
  "---",
  "d",
].join("\n");

describe("chunked files", () => {
  it("splits on --- lines and pads each chunk so line numbers are the file's", () => {
    const chunks = readChunks("f.star", FILE);
    expect(chunks.map((c) => c.startLine)).toEqual([1, 4, 7]);
    expect(chunks[1]!.source.split("\n")[4]).toContain("c ###");
    expect(chunks[2]!.source).toBe("\n".repeat(6) + "d");
  });

  it("reads ### expectations as Go string literals holding regular expressions", () => {
    const [first, second] = readChunks("f.star", FILE);
    expect([...first!.expectations.keys()]).toEqual([2]);
    expect(first!.expectations.get(2)!.source).toBe("undefined: b");
    expect(second!.expectations.get(5)!.test("got '*', want x")).toBe(true);
  });

  it("detects option: comments", () => {
    const [first, second] = readChunks("f.star", FILE);
    expect(second!.hasOption("set")).toBe(true);
    expect(second!.hasOption("while")).toBe(true);
    expect(second!.hasOption("recursion")).toBe(false);
    expect(first!.hasOption("set")).toBe(false);
  });

  it("consumes a matching error, and reports mismatches, unexpected and missing errors", () => {
    const [first, second, third] = readChunks("f.star", FILE);
    first!.gotError(2, "t.star:2:1: undefined: b");
    first!.done();
    expect(first!.failures).toEqual([]);

    second!.gotError(5, "something else");
    second!.done();
    expect(second!.failures.map((f) => f.message)).toEqual([
      `f.star:5: error "something else" does not match pattern "got '\\\\*', want"`,
    ]);

    third!.gotError(7, "boom");
    const firstAgain = readChunks("f.star", FILE)[0]!;
    firstAgain.done();
    expect(third!.failures.map((f) => f.message)).toEqual([
      "f.star:7: unexpected error: boom",
    ]);
    expect(firstAgain.failures.map((f) => f.message)).toEqual([
      'f.star:2: expected error matching "undefined: b"',
    ]);
  });

  it("unquotes Go literals and rejects malformed ones", () => {
    expect(unquoteGo('"a\\\\.b\\"c"')).toBe('a\\.b"c');
    expect(unquoteGo("`raw\\*`")).toBe("raw\\*");
    expect(() => unquoteGo("bare")).toThrow(/not a quoted regexp/);
    const [chunk] = readChunks("g.star", "x ### not-quoted");
    expect(chunk!.failures.map((f) => f.message)).toEqual([
      "g.star:1: not a quoted regexp: not-quoted",
    ]);
  });
});
