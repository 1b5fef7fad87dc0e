import { describe, expect, it } from "vitest";
import { z } from "zod";

import { openApiOf, toStructural } from "./to-openapi.js";

describe("toStructural", () => {
  it("drops additionalProperties:false, $schema and safe-integer bounds but keeps maps", () => {
    const s = openApiOf(z.strictObject({ n: z.int(), m: z.record(z.string(), z.strictObject({ v: z.string() })) }));
    expect(s).toEqual({
      type: "object",
      properties: {
        n: { type: "integer" },
        m: { type: "object", additionalProperties: { type: "object", properties: { v: { type: "string" } }, required: ["v"] } },
      },
      required: ["n", "m"],
    });
  });

  it("carries x-kubernetes extensions given as zod metadata", () => {
    const s = openApiOf(z.object({ a: z.string() }).meta({ "x-kubernetes-validations": [{ rule: "self.a != ''", message: "m" }] }));
    expect(s["x-kubernetes-validations"]).toEqual([{ rule: "self.a != ''", message: "m" }]);
  });

  it.each([
    ["$ref", { $ref: "#/x" }, /\$ref/],
    ["anyOf", { anyOf: [{ type: "string" }] }, /anyOf/],
    ["a node without a type", { properties: {} }, /type/],
  ])("refuses %s, which Kubernetes would not accept", (_label, node, message) => {
    expect(() => toStructural(node)).toThrow(message);
  });
});
