import { describe, expect, it } from "vitest";

import { MIXED_PREFIX, MIXED_SUFFIX, mixedContent } from "./mixed.js";

describe("mixedContent", () => {
  it("opens and closes with the fixed sentences around a JSON object of results", () => {
    expect(mixedContent([{ label: "web_search", text: "found" }])).toBe(
      `The Output from allowed tools calls is - {"web_search":"found"}\n\nNow I shall call these tools next...`,
    );
    expect(MIXED_PREFIX).toBe("The Output from allowed tools calls is - ");
    expect(MIXED_SUFFIX).toBe("\n\nNow I shall call these tools next...");
  });

  it("sorts the keys and lists the results of a tool called more than once in call order", () => {
    const text = mixedContent([
      { label: "z_tool", text: "z" },
      { label: "a_tool", text: "first" },
      { label: "a_tool", text: "second" },
    ]);
    expect(text.slice(MIXED_PREFIX.length, -MIXED_SUFFIX.length)).toBe(
      '{"a_tool":["first","second"],"z_tool":"z"}',
    );
  });
});
