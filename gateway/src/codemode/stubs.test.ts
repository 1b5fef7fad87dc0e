import { describe, expect, it } from "vitest";

import { callerCatalog } from "./catalog.js";
import { toolDocs } from "./docs.js";
import { MetaToolError } from "./errors.js";
import { fileLines, fileTree, readLines, signatureLine } from "./stubs.js";
import { testRegistry } from "./test-catalog.js";

const catalog = callerCatalog(testRegistry(), {});

describe("virtual .pyi files", () => {
  it("lists one file per code-mode server at binding level server, and no direct client", () => {
    expect(fileTree(catalog, "server")).toBe(
      "servers/\n  math.pyi\n  weather.pyi",
    );
  });

  it("lists one file per tool at binding level tool, under identifier names", () => {
    expect(fileTree(catalog, "tool")).toBe(
      [
        "servers/",
        "  math/",
        "    add.pyi",
        "    odd_args.pyi",
        "  weather/",
        "    alerts.pyi",
        "    get_forecast.pyi",
        "    pass_.pyi",
      ].join("\n"),
    );
  });

  it("starts a server file with a usage comment and has one signature line per tool", () => {
    const lines = fileLines("servers/weather.pyi", catalog, "server");
    const usage = lines.filter((l) => l.startsWith("#"));
    expect(usage.length).toBeGreaterThan(0);
    expect(lines.slice(0, usage.length)).toEqual(usage);
    expect(lines.slice(usage.length)).toEqual([
      "def alerts(region: str = None) -> Any: ...  # Active weather alerts",
      'def get_forecast(city: str, days: int = None, units: Literal["metric", "imperial"] = None) -> dict: ...  # Returns the forecast for a city. (MCP name: get-forecast)',
      "def pass_() -> Any: ...  # A tool whose name is a keyword (MCP name: pass)",
    ]);
  });

  it("gives a tool file the usage comment and that tool's signature only", () => {
    const lines = fileLines("servers/math/add.pyi", catalog, "tool");
    expect(lines.at(-1)).toBe(
      "def add(a: float, b: float) -> Any: ...  # Adds two numbers",
    );
    expect(lines.filter((l) => l.startsWith("def "))).toHaveLength(1);
  });

  it("finds a tool file by the tool's MCP name as well as its identifier", () => {
    expect(
      fileLines("servers/weather/get-forecast.pyi", catalog, "tool"),
    ).toEqual(fileLines("servers/weather/get_forecast.pyi", catalog, "tool"));
  });

  it("matches server names case-insensitively", () => {
    expect(fileLines("servers/WEATHER.pyi", catalog, "server")).toEqual(
      fileLines("servers/weather.pyi", catalog, "server"),
    );
  });

  it("shows tools whose parameter names are not identifiers as taking one dict", () => {
    const odd = [...(catalog.get("math")?.tools.values() ?? [])].find(
      (t) => t.id === "odd_args",
    );
    expect(odd && signatureLine(odd)).toBe(
      'def odd_args(args: dict) -> Any: ...  # Takes names that are not identifiers (pass one dict with keys "max-results"; MCP name: odd-args)',
    );
  });

  it.each([
    ["servers/nope.pyi", "server"],
    ["servers/math/add.pyi", "server"],
    ["servers/math.pyi", "tool"],
    ["servers/math/subtract.pyi", "tool"],
  ] as const)(
    "rejects the unknown file %s at level %s and lists the available ones",
    (name, level) => {
      expect(() => fileLines(name, catalog, level)).toThrow(MetaToolError);
      try {
        fileLines(name, catalog, level);
      } catch (err) {
        const msg = (err as Error).message;
        expect(msg).toContain(`unknown file "${name}"`);
        expect(msg).toContain(
          level === "server"
            ? "servers/math.pyi, servers/weather.pyi"
            : "servers/math/add.pyi",
        );
      }
    },
  );
});

describe("line ranges", () => {
  const lines = ["one", "two", "three", "four"];
  it.each([
    [undefined, undefined, "one\ntwo\nthree\nfour"],
    [2, undefined, "two\nthree\nfour"],
    [undefined, 2, "one\ntwo"],
    [2, 3, "two\nthree"],
    [3, 3, "three"],
    [4, 99, "four"],
  ])(
    "start %s end %s reads 1-based inclusive lines",
    (start, end, expected) => {
      expect(readLines(lines, "f.pyi", start, end)).toBe(expected);
    },
  );

  it.each([
    [0, undefined, "startLine must be 1 or more"],
    [5, undefined, "startLine 5 is past the end of f.pyi, which has 4 lines"],
    [3, 2, "endLine 2 is before startLine 3"],
  ])("refuses start %s end %s", (start, end, message) => {
    expect(() => readLines(lines, "f.pyi", start, end)).toThrow(message);
  });
});

describe("getToolDocs", () => {
  it("documents the description, every parameter, the result shape and an example call", () => {
    const doc = toolDocs(catalog, "weather", "get_forecast");
    expect(doc).toContain(
      "Returns the forecast for a city. Data comes from the national service.",
    );
    expect(doc).toContain("city: str (required) - City name");
    expect(doc).toContain(
      'units: Literal["metric", "imperial"] (optional, default None) - Unit system',
    );
    expect(doc).toContain("temperature: float (always present) - Celsius");
    expect(doc).toContain('r = weather.get_forecast(city="<city>")');
  });

  it("says how results are converted when the tool has no output schema", () => {
    expect(toolDocs(catalog, "Math", "add")).toContain("no output schema");
  });

  it("names the available servers for an unknown server and the tools for an unknown tool", () => {
    expect(() => toolDocs(catalog, "github", "x")).toThrow(
      'unknown server "github"; available servers: math, weather',
    );
    expect(() => toolDocs(catalog, "math", "mul")).toThrow(
      'server "math" has no tool "mul" available to you; its tools: add, odd_args',
    );
  });
});
