import { describe, expect, it } from "vitest";

import { functionName, MAX_FUNCTION_NAME } from "./function-names.js";

describe("functionName", () => {
  it("keeps a valid name unchanged", () => {
    expect(functionName("everything_get-sum")).toBe("everything_get-sum");
  });

  it("aliases a 100-character name to 64 valid characters that start like the name", () => {
    const name = `${"c".repeat(60)}_${"t".repeat(39)}`;
    expect(name).toHaveLength(100);
    const alias = functionName(name);
    expect(alias).toHaveLength(MAX_FUNCTION_NAME);
    expect(alias).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(alias.startsWith("c".repeat(55))).toBe(true);
  });

  it("gives the same alias every time and different aliases to names sharing a prefix", () => {
    const a = `${"x".repeat(80)}_a`;
    const b = `${"x".repeat(80)}_b`;
    expect(functionName(a)).toBe(functionName(a));
    expect(functionName(a)).not.toBe(functionName(b));
  });

  it("replaces characters providers reject", () => {
    const alias = functionName("files_read.file/v2");
    expect(alias).toMatch(/^files_read_file_v2_[0-9a-f]{8}$/);
  });
});
