/**
 * The embedded default: what `npm start` runs with no config file. In-memory state and one
 * stdio client, `everything` (the MCP reference server, a dependency of the gateway), with
 * all its tools, so a new user sees tools at once. The server is started with this very
 * Node binary and its installed entry file: no npx, no network, no PATH lookup.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

import {
  type GatewayConfig,
  GatewayConfig as GatewayConfigSchema,
} from "./schema.js";

const EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything";

/** Absolute path of the installed server-everything entry (its package.json `bin`). */
export function everythingServerEntry(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve(`${EVERYTHING_PACKAGE}/package.json`);
  const pkg = require(pkgPath) as {
    bin?: string | Record<string, string>;
    main?: string;
  };
  const bin =
    typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin ?? {})[0];
  return join(dirname(pkgPath), bin ?? pkg.main ?? "dist/index.js");
}

export function defaultConfig(): GatewayConfig {
  return GatewayConfigSchema.parse({
    mcp: {
      client_configs: [
        {
          name: "everything",
          connection_type: "stdio",
          stdio_config: {
            command: process.execPath,
            args: [everythingServerEntry(), "stdio"],
          },
          tools_to_execute: ["*"],
        },
      ],
    },
  });
}
