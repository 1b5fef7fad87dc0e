import { describe, expect, it } from "vitest";

import { addUsage } from "./usage.js";

describe("addUsage", () => {
  it("adds every counter, nested detail counters included", () => {
    const a = {
      prompt_tokens: 10,
      completion_tokens: 2,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 4 },
    };
    const b = {
      prompt_tokens: 20,
      completion_tokens: 3,
      total_tokens: 23,
      prompt_tokens_details: { cached_tokens: 1 },
      completion_tokens_details: { reasoning_tokens: 7 },
    };
    expect(addUsage(a, b)).toEqual({
      prompt_tokens: 30,
      completion_tokens: 5,
      total_tokens: 35,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
  });

  it("keeps the total when an iteration reports no usage", () => {
    expect(addUsage({ input_tokens: 3 }, undefined)).toEqual({
      input_tokens: 3,
    });
    expect(addUsage(undefined, { input_tokens: 3 })).toEqual({
      input_tokens: 3,
    });
  });
});
