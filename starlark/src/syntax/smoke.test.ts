import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { conformanceDir } from "../conformance/static-suites.js";
import { resolve } from "../resolve/resolver.js";
import { ALL_OPTIONS, parse } from "./parser.js";

const dir = conformanceDir();
const files =
  dir === null
    ? []
    : readdirSync(dir).filter(
        (f) => f.endsWith(".star") && f !== "syntax_errors.star",
      );

describe.skipIf(dir === null)(
  "parsing the conformance testdata (skipped when ../shared/conformance is absent)",
  () => {
    it.each(files)("parses every chunk of %s with all options on", (name) => {
      const src = readFileSync(path.join(dir!, name), "utf8");
      const chunks = src.split("\n---\n");
      for (const chunk of chunks)
        expect(() => parse(name, chunk, ALL_OPTIONS)).not.toThrow();
      expect(chunks.length).toBeGreaterThan(0);
    });
  },
);

// A realistic code-mode script: functions, closures, comprehensions, dicts, f-strings, loops.
const UNIT = `
def summarize_{i}(items, key = "name", *, limit = 10, **opts):
    """Summarises items by key."""
    counts = {}
    for item in items[:limit]:
        k = item.get(key, "unknown")
        counts[k] = counts.get(k, 0) + 1
    ordered = sorted(counts.items(), key = lambda kv: (-kv[1], kv[0]))
    lines = [f"{k}: {v}" for k, v in ordered if v > 0]
    total = 0
    while total < len(lines) and total < 100:
        total += 1
    if not lines:
        return None
    elif len(lines) == 1:
        return lines[0]
    else:
        return "\\n".join(lines) + " (%d)" % total

result_{i} = summarize_{i}([{"name": "a", "n": 0x1F}, {"name": 'b', "n": 1.5e3}], limit = 2)
flags_{i} = {x: x * 2 for x in range(10) if x % 3 != 0 or x & 1 == 0}
`;

describe("parsing a 10 KB script", () => {
  it("parses and resolves a 10 KB script of typical code", () => {
    let src = "";
    for (let i = 0; src.length < 10 * 1024; i++)
      src += UNIT.replaceAll("{i}", String(i));
    const file = parse("big.star", src, ALL_OPTIONS);
    const universe = new Set(["len", "sorted", "range", "None"]);
    expect(
      resolve(
        file,
        () => false,
        (n) => universe.has(n),
      ),
    ).toEqual([]);
    expect(file.stmts.length).toBeGreaterThanOrEqual(3 * 10);
  });
});
