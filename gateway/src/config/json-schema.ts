/**
 * The JSON Schema of the config file, derived from the zod schema (never written by hand), so
 * editors can validate and complete `gateway/config.schema.json`-annotated files. The input
 * side is used: keys with defaults are optional and show their defaults.
 */
import { z } from "zod";

import { GatewayConfig } from "./schema.js";

export const CONFIG_SCHEMA_ID =
  "https://toolgate.dev/schemas/config.schema.json";

export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(GatewayConfig, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
  });
  return {
    ...schema,
    $id: CONFIG_SCHEMA_ID,
    title: "Toolgate configuration",
    description:
      "Configuration file of the Toolgate MCP gateway (JSON or YAML). Generated from gateway/src/config/schema.ts by `npm run gen:schema`.",
  };
}

/** The file's exact contents: stable key order, two-space indent, trailing newline. */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}
