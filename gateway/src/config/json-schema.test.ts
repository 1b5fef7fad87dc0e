import { readFileSync } from "node:fs";
import { join } from "node:path";

import { expect, test } from "vitest";

import { configJsonSchema, configJsonSchemaText } from "./json-schema.js";

test("gateway/config.schema.json is what `npm run gen:schema` writes from the zod schema", () => {
  const onDisk = JSON.parse(
    readFileSync(
      join(import.meta.dirname, "..", "..", "config.schema.json"),
      "utf8",
    ),
  ) as unknown;
  // Compared as data, so reformatting the file (prettier) does not count as drift.
  expect(
    onDisk,
    "config.schema.json is stale: run `npm run gen:schema`",
  ).toEqual(JSON.parse(configJsonSchemaText()));
});

test("the JSON Schema shows defaults and rejects unknown keys", () => {
  const schema = configJsonSchema() as {
    properties: Record<
      string,
      { properties: Record<string, { default?: unknown }> }
    >;
    additionalProperties: boolean;
  };
  expect(schema.additionalProperties).toBe(false);
  expect(schema.properties.server?.properties.port?.default).toBe(8080);
  expect(schema.properties.mcp?.properties.client_configs).toBeDefined();
});
