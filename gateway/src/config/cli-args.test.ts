import { describe, expect, test } from "vitest";

import { applyCliOverrides, parseCliArgs } from "./cli-args.js";
import { parseConfig } from "./load.js";

describe("command line", () => {
  test.each<[string, string[], Record<string, string>, object]>([
    ["nothing", [], {}, { help: false, version: false }],
    ["--config", ["--config", "a.yaml"], {}, { configPath: "a.yaml" }],
    [
      "TOOLGATE_CONFIG",
      [],
      { TOOLGATE_CONFIG: "b.json" },
      { configPath: "b.json" },
    ],
    [
      "a flag over its variable",
      ["-c", "a.yaml", "--port", "9"],
      { TOOLGATE_CONFIG: "b.json", TOOLGATE_PORT: "10" },
      { configPath: "a.yaml", port: 9 },
    ],
    [
      "host and port from variables",
      [],
      { TOOLGATE_HOST: "0.0.0.0", TOOLGATE_PORT: "0" },
      { host: "0.0.0.0", port: 0 },
    ],
    ["an empty variable as unset", [], { TOOLGATE_PORT: "" }, { help: false }],
    ["--help", ["--help"], {}, { help: true }],
  ])("reads %s", (_name, argv, env, expected) => {
    expect(parseCliArgs(argv, env)).toMatchObject(expected);
  });

  test.each([
    [["--bogus"], /Unknown option '--bogus'/],
    [["--port", "http"], /--port "http" is not a port number \(0-65535\)/],
    [["--port", "70000"], /--port "70000" is not a port number/],
    [["extra"], /Unexpected argument 'extra'/],
  ])("rejects %j with the usage", (argv, message) => {
    expect(() => parseCliArgs(argv, {})).toThrow(message);
    expect(() => parseCliArgs(argv, {})).toThrow(/Usage: toolgate/);
  });

  test("names the variable when TOOLGATE_PORT is wrong", () => {
    expect(() => parseCliArgs([], { TOOLGATE_PORT: "x" })).toThrow(
      /TOOLGATE_PORT "x" is not a port number/,
    );
  });

  test("host and port override the file", () => {
    const cfg = parseConfig({
      server: { host: "127.0.0.1", port: 8080, log_level: "warn" },
    });
    expect(applyCliOverrides(cfg, { port: 0 }).server).toMatchObject({
      host: "127.0.0.1",
      port: 0,
      log_level: "warn",
    });
    expect(applyCliOverrides(cfg, { host: "::1" }).server).toMatchObject({
      host: "::1",
      port: 8080,
    });
    expect(applyCliOverrides(cfg, {})).toBe(cfg);
  });
});
