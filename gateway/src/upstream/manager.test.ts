import { describe, expect, it } from "vitest";

import type { ClientConfigInput } from "../config/schema.js";
import { ClientConfig, GatewayConfig } from "../config/schema.js";
import { connectionKey, settingsOf } from "./manager.js";

const http = (extra: Partial<ClientConfigInput> = {}): ClientConfig =>
  ClientConfig.parse({
    name: "api",
    connection_type: "http",
    connection_string: "http://127.0.0.1:1/mcp",
    ...extra,
  });

describe("connectionKey", () => {
  it.each<[string, Partial<ClientConfigInput>]>([
    ["tools_to_execute", { tools_to_execute: ["a"] }],
    [
      "tools_to_auto_execute",
      { tools_to_execute: ["*"], tools_to_auto_execute: ["a"] },
    ],
    ["is_ping_available", { is_ping_available: false }],
    ["is_code_mode_client", { is_code_mode_client: true }],
  ])("ignores %s, which apply in place", (_, extra) => {
    expect(connectionKey(http(extra))).toBe(connectionKey(http()));
  });

  it.each<[string, Partial<ClientConfigInput>]>([
    ["the URL", { connection_string: "http://127.0.0.1:2/mcp" }],
    ["the name", { name: "other" }],
    ["the transport", { connection_type: "sse" }],
    ["the headers", { auth_type: "headers", headers: { a: "1" } }],
  ])("changes with %s, which needs a new connection", (_, extra) => {
    expect(connectionKey(http(extra))).not.toBe(connectionKey(http()));
  });

  it("does not depend on header order", () => {
    const a = http({ auth_type: "headers", headers: { a: "1", b: "2" } });
    const b = http({ auth_type: "headers", headers: { b: "2", a: "1" } });
    expect(connectionKey(a)).toBe(connectionKey(b));
  });

  it("changes with the stdio command, arguments and environment names", () => {
    const stdio = (args: string[], envs: string[] = []): ClientConfig =>
      ClientConfig.parse({
        name: "s",
        connection_type: "stdio",
        stdio_config: { command: "node", args, envs },
      });
    expect(connectionKey(stdio(["a"]))).not.toBe(connectionKey(stdio(["b"])));
    expect(connectionKey(stdio(["a"], ["X"]))).not.toBe(
      connectionKey(stdio(["a"])),
    );
  });
});

describe("settingsOf", () => {
  it("uses SPEC 8.1's defaults", () => {
    expect(settingsOf(GatewayConfig.parse({}))).toEqual({
      checkIntervalMs: 10_000,
      checkTimeoutMs: 5000,
      maxConsecutiveFailures: 5,
      toolExecutionTimeoutMs: 30_000,
    });
  });
});
