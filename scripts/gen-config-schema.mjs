// Writes gateway/config.schema.json from the zod schema; gateway/src/config/json-schema.test.ts fails when it is stale.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { configJsonSchemaText } from "../gateway/src/config/json-schema.ts";

const target = join(import.meta.dirname, "..", "gateway", "config.schema.json");
writeFileSync(target, configJsonSchemaText());
console.log(`wrote ${target}`);
