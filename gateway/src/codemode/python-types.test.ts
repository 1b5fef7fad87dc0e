import { describe, expect, it } from "vitest";

import { paramsOf, pyType } from "./python-types.js";

describe("JSON Schema to Python types", () => {
  it.each([
    [{ type: "string" }, "str"],
    [{ type: "integer" }, "int"],
    [{ type: "number" }, "float"],
    [{ type: "boolean" }, "bool"],
    [{ type: "null" }, "None"],
    [{ type: "object", properties: { a: { type: "string" } } }, "dict"],
    [{ type: "object" }, "dict"],
    [{ type: "array", items: { type: "string" } }, "list[str]"],
    [
      { type: "array", items: { type: "array", items: { type: "integer" } } },
      "list[list[int]]",
    ],
    [{ type: "array" }, "list[Any]"],
    [{ type: "string", enum: ["a", "b"] }, 'Literal["a", "b"]'],
    [{ enum: [1, true, null] }, "Literal[1, True, None]"],
    [{ const: "fixed" }, 'Literal["fixed"]'],
    [{ type: ["string", "null"] }, "str | None"],
    [{ anyOf: [{ type: "integer" }, { type: "string" }] }, "int | str"],
    [{ oneOf: [{ type: "number" }, { $ref: "#/defs/x" }] }, "Any"],
    [{ properties: { a: {} } }, "dict"],
    [{ $ref: "#/definitions/thing" }, "Any"],
    [{}, "Any"],
  ])("maps %j to %s", (schema, expected) => {
    expect(pyType(schema)).toBe(expected);
  });

  it("puts required parameters first, each group in declaration order", () => {
    const params = paramsOf({
      type: "object",
      properties: { c: {}, a: {}, d: {}, b: {} },
      required: ["d", "a"],
    });
    expect(params.map((p) => `${p.name}${p.required ? "!" : "?"}`)).toEqual([
      "a!",
      "d!",
      "c?",
      "b?",
    ]);
  });
});
