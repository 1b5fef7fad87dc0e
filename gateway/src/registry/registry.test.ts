import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { isVisible, normaliseToolRef, parseToolHeaders } from "./filter.js";
import { splitAggregatedName, toolSelector } from "./naming.js";
import type { ClientTools } from "./tool-registry.js";
import { AggregatedToolRegistry } from "./tool-registry.js";
import type { RegistryChange, ToolEntry } from "./types.js";

const tool = (name: string, description = name): Tool => ({
  name,
  description,
  inputSchema: { type: "object" },
});

function client(
  name: string,
  tools: string[],
  extra: Partial<ClientTools> = {},
): ClientTools {
  return {
    id: name,
    name,
    codeMode: false,
    toolsToExecute: ["*"],
    toolsToAutoExecute: [],
    tools: tools.map((t) => tool(t)),
    ...extra,
  };
}

function registry(): {
  reg: AggregatedToolRegistry;
  changes: RegistryChange[];
  calls: ToolEntry[];
} {
  const calls: ToolEntry[] = [];
  const reg = new AggregatedToolRegistry((entry) => {
    calls.push(entry);
    return Promise.resolve({ content: [{ type: "text", text: entry.name }] });
  });
  const changes: RegistryChange[] = [];
  reg.onChange((c) => changes.push(c));
  return { reg, changes, calls };
}

describe("tools_to_execute", () => {
  it.each([
    [["*"], ["a", "b", "c"]],
    [[], []],
    [["b"], ["b"]],
    [
      ["c", "a", "missing"],
      ["a", "c"],
    ],
  ])("with %j offers %j", (list, offered) => {
    const { reg } = registry();
    reg.setClient(client("srv", ["a", "b", "c"], { toolsToExecute: list }));
    expect(reg.list().map((e) => e.tool)).toEqual(offered);
    for (const t of ["a", "b", "c"])
      expect(reg.resolve(`srv_${t}`) !== undefined).toBe(offered.includes(t));
  });

  it("treats an absent list as none", () => {
    expect(toolSelector(undefined)("x")).toBe(false);
  });

  it("marks tools in tools_to_auto_execute", () => {
    const { reg } = registry();
    reg.setClient(client("srv", ["a", "b"], { toolsToAutoExecute: ["b"] }));
    expect(reg.list().map((e) => [e.name, e.autoExecute])).toEqual([
      ["srv_a", false],
      ["srv_b", true],
    ]);
  });
});

describe("naming", () => {
  it("resolves a name by client, not by its first underscore", () => {
    const { reg } = registry();
    reg.setClient(client("my_api", ["get_x"]));
    reg.setClient(client("my", ["other"]));
    const entry = reg.resolve("my_api_get_x");
    expect(entry).toMatchObject({
      client: "my_api",
      tool: "get_x",
      clientId: "my_api",
    });
    expect(splitAggregatedName("my_api_get_x", ["my", "my_api"])).toEqual({
      client: "my_api",
      tool: "get_x",
    });
    expect(splitAggregatedName("nobody_x", ["my"])).toBeUndefined();
  });

  it("lists the known client names, connected or not", () => {
    const { reg } = registry();
    reg.setClient(client("web", ["a"]));
    reg.setClient(client("idle", []));
    expect([...reg.clientNames()].sort()).toEqual(["idle", "web"]);
    expect(normaliseToolRef("web_get-x", reg.clientNames())).toBe("web_get-x");
  });

  it("gives an aggregated name that two clients would share to the first client in name order", () => {
    const { reg } = registry();
    reg.setClient(client("a_b", ["c"]));
    reg.setClient(client("a", ["b_c"]));
    expect(reg.list().filter((e) => e.name === "a_b_c")).toHaveLength(1);
    expect(reg.resolve("a_b_c")?.client).toBe("a");
  });

  it("orders tools by client name, then tool name", () => {
    const { reg } = registry();
    reg.setClient(client("zeta", ["b", "a"]));
    reg.setClient(client("alpha", ["z", "y"]));
    expect(reg.list().map((e) => e.name)).toEqual([
      "alpha_y",
      "alpha_z",
      "zeta_a",
      "zeta_b",
    ]);
  });

  it("shares the upstream definitions instead of copying them", () => {
    const { reg } = registry();
    const info = client("srv", ["a"]);
    reg.setClient(info);
    expect(reg.resolve("srv_a")?.definition).toBe(info.tools[0]);
    expect(reg.list()).toBe(reg.list());
    expect(Object.isFrozen(reg.list())).toBe(true);
  });
});

describe("change events and version", () => {
  it("reports added, removed and changed tools and bumps the version", () => {
    const { reg, changes } = registry();
    reg.setClient(client("srv", ["a", "b"]));
    const v = reg.version;
    reg.setClient({
      ...client("srv", ["b", "c"]),
      tools: [tool("b", "new description"), tool("c")],
    });
    expect(reg.version).toBeGreaterThan(v);
    expect(changes.at(-1)).toEqual({
      kind: "client-tools",
      client: "srv",
      added: ["srv_c"],
      removed: ["srv_a"],
      changed: ["srv_b"],
    });
  });

  it("keeps the version and entries when nothing changed", () => {
    const { reg, changes } = registry();
    reg.setClient(client("srv", ["a"]));
    const v = reg.version;
    const entry = reg.resolve("srv_a");
    reg.setClient(client("srv", ["a"]));
    expect(reg.version).toBe(v);
    expect(reg.resolve("srv_a")).toBe(entry);
    expect(changes).toHaveLength(1);
  });

  it("keeps unchanged entries as the same objects when others change", () => {
    const { reg } = registry();
    reg.setClient(client("srv", ["a"]));
    const entry = reg.resolve("srv_a");
    reg.setClient(client("srv", ["a", "b"]));
    expect(reg.resolve("srv_a")).toBe(entry);
  });

  it("reports a removed client", () => {
    const { reg, changes } = registry();
    reg.setClient(client("srv", ["a"]));
    reg.removeClient("srv");
    expect(changes.at(-1)).toEqual({ kind: "client-removed", client: "srv" });
    expect(reg.list()).toEqual([]);
    reg.removeClient("srv");
    expect(changes).toHaveLength(2);
  });

  it("stops notifying after unsubscribe", () => {
    const { reg } = registry();
    const seen: RegistryChange[] = [];
    const off = reg.onChange((c) => seen.push(c));
    off();
    reg.setClient(client("srv", ["a"]));
    expect(seen).toEqual([]);
  });

  it("delegates calls to the invoker with the entry", async () => {
    const { reg, calls } = registry();
    reg.setClient(client("srv", ["a"]));
    const entry = reg.resolve("srv_a")!;
    await expect(reg.call(entry, {})).resolves.toEqual({
      content: [{ type: "text", text: "srv_a" }],
    });
    expect(calls).toEqual([entry]);
  });
});

describe("filters", () => {
  const { reg } = registry();
  reg.setClient(client("web", ["search", "fetch"]));
  reg.setClient(client("db", ["query", "drop"]));
  reg.setClient(client("code", ["run"], { codeMode: true }));
  const names = (f: Parameters<typeof reg.list>[0]): string[] =>
    reg.list(f).map((e) => e.name);

  it.each([
    [
      "no filter: every direct tool",
      undefined,
      ["db_drop", "db_query", "web_fetch", "web_search"],
    ],
    [
      "include clients",
      { includeClients: new Set(["web"]) },
      ["web_fetch", "web_search"],
    ],
    [
      "exclude clients",
      { excludeClients: new Set(["web"]) },
      ["db_drop", "db_query"],
    ],
    [
      "include tools",
      { includeTools: new Set(["web_search", "db_query"]) },
      ["db_query", "web_search"],
    ],
    [
      "include a client wildcard",
      { includeTools: new Set(["db_*"]) },
      ["db_drop", "db_query"],
    ],
    [
      "exclude tools",
      { excludeTools: new Set(["db_drop", "web_*"]) },
      ["db_query"],
    ],
    [
      "include then exclude",
      {
        includeClients: new Set(["db", "web"]),
        excludeClients: new Set(["web"]),
        includeTools: new Set(["db_*"]),
        excludeTools: new Set(["db_drop"]),
      },
      ["db_query"],
    ],
    [
      "a virtual key allowance",
      {
        allowance: new Map<string, "*" | ReadonlySet<string>>([
          ["web", "*"],
          ["db", new Set(["query"])],
        ]),
      },
      ["db_query", "web_fetch", "web_search"],
    ],
    [
      "code mode included",
      { includeCodeMode: true, includeClients: new Set(["code"]) },
      ["code_run"],
    ],
    ["code mode hidden by default", { includeClients: new Set(["code"]) }, []],
  ])("applies %s", (_, filter, expected) => {
    expect(names(filter)).toEqual(expected);
    for (const e of reg.list({ includeCodeMode: true }))
      expect(reg.isVisible(e, filter)).toBe(expected.includes(e.name));
  });

  it("filters an entry that was built elsewhere by its client wildcard", () => {
    const entry: ToolEntry = {
      name: "x_y",
      client: "x",
      clientId: "x",
      tool: "y",
      definition: tool("y"),
      autoExecute: false,
      codeMode: false,
    };
    expect(isVisible(entry, { includeTools: new Set(["x_*"]) })).toBe(true);
  });
});

describe("parseToolHeaders", () => {
  it("reads the four x-bf-mcp headers, comma-separated, in both spellings", () => {
    const filter = parseToolHeaders({
      "x-bf-mcp-include-clients": "web, db",
      "x-bf-mcp-exclude-clients": "code",
      "x-bf-mcp-include-tools": "web-search,db_query,web-*",
      "x-bf-mcp-exclude-tools": "db-drop",
    });
    expect(filter).toEqual({
      includeClients: new Set(["web", "db"]),
      excludeClients: new Set(["code"]),
      includeTools: new Set(["web_search", "db_query", "web_*"]),
      excludeTools: new Set(["db_drop"]),
    });
  });

  it("ignores absent and empty headers and a client list of *", () => {
    expect(
      parseToolHeaders({
        "x-bf-mcp-include-clients": " , ",
        "x-bf-mcp-exclude-tools": undefined,
      }),
    ).toEqual({});
    expect(parseToolHeaders({ "x-bf-mcp-include-clients": "*" })).toEqual({});
  });

  it("joins repeated headers", () => {
    expect(
      parseToolHeaders({ "x-bf-mcp-include-clients": ["a", "b"] }),
    ).toEqual({ includeClients: new Set(["a", "b"]) });
  });

  it.each([
    ["web-search", "web_search"],
    ["my_api-get_x", "my_api_get_x"],
    ["everything-get-sum", "everything_get-sum"],
    ["web-*", "web_*"],
    ["web_search", "web_search"],
    ["web_*", "web_*"],
  ])("normalises %s to %s", (raw, expected) => {
    expect(normaliseToolRef(raw)).toBe(expected);
  });

  it("keeps an underscore-form name whose tool holds a hyphen when the client is known", () => {
    expect(normaliseToolRef("my_api_get-x", new Set(["my_api"]))).toBe(
      "my_api_get-x",
    );
    expect(normaliseToolRef("my_api-get-x", new Set(["my_api"]))).toBe(
      "my_api_get-x",
    );
  });
});
