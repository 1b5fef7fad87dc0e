import { readFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, test } from "vitest";

import { checkEnv, parseConfigText } from "./load.js";

const readme = readFileSync(
  join(import.meta.dirname, "..", "..", "..", "README.md"),
  "utf8",
);
const blocks = (lang: string) =>
  [
    ...readme.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g")),
  ].map((m) => m[1] ?? "");

describe("README", () => {
  test("opens with a title, one sentence, then the two set-up commands", () => {
    const [title, sentence, start, test] = readme.split(/\n\s*\n/);
    expect(title).toBe("# Toolgate");
    expect(sentence?.split("\n")).toHaveLength(1);
    expect(start).toBe("```sh\nnpm install && npm start\n```");
    expect(test).toBe("```sh\nnpm install && npm test\n```");
  });

  test("its YAML example is a valid config whose env references are all checked", () => {
    const [yaml] = blocks("yaml");
    expect(yaml).toBeDefined();
    const config = parseConfigText(yaml!, "README.yaml");
    expect(config.mcp.client_configs.map((c) => c.name)).toEqual([
      "filesystem",
      "web_search",
    ]);
    expect(() => checkEnv(config, "README.yaml", { env: {} })).toThrow(
      "README.yaml: environment variables TOOLGATE_ADMIN_PASSWORD, SEARCH_MCP_URL, SEARCH_MCP_TOKEN, OPENAI_API_KEY, TEAM_A_KEY referenced by the configuration are not set",
    );
  });

  test("its JSON example is a valid config", () => {
    const [json] = blocks("json");
    expect(
      parseConfigText(json!, "README.json").mcp.client_configs[0]
        ?.tools_to_execute,
    ).toEqual(["*"]);
  });
});
