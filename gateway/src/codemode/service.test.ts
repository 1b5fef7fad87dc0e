import { pino } from "pino";
import { describe, expect, it } from "vitest";

import { GatewayConfig } from "../config/schema.js";
import type { McpRecorder } from "../telemetry/types.js";
import { createCodeMode } from "./service.js";
import { testRegistry } from "./test-catalog.js";

class StatusRecorder implements McpRecorder {
  readonly statuses: string[] = [];
  toolCall(): void {}
  clientState(): void {}
  clientReconnect(): void {}
  clientTools(): void {}
  clientRemoved(): void {}
  agentIterations(): void {}
  codeModeExecution(status: "success" | "error" | "timeout"): void {
    this.statuses.push(status);
  }
}

function setup(tm: Record<string, unknown> = {}): {
  codeMode: ReturnType<typeof createCodeMode>;
  recorder: StatusRecorder;
} {
  const config = GatewayConfig.parse({ mcp: { tool_manager_config: tm } });
  const recorder = new StatusRecorder();
  const codeMode = createCodeMode({
    registry: testRegistry(),
    getConfig: () => config,
    recorder,
    logger: pino({ level: "silent" }),
  });
  return { codeMode, recorder };
}

const ctx = {
  filter: {},
  signal: new AbortController().signal,
  requestId: "r",
};
const caller = {};
const textOf = (r: { content: { type: string; text?: string }[] }): string =>
  r.content.map((c) => c.text ?? "").join("\n");

describe("the code-mode service", () => {
  it("offers the four meta-tools only to callers with a code-mode server", () => {
    const { codeMode } = setup();
    expect(codeMode.virtualTools.tools(caller, {}).map((t) => t.name)).toEqual([
      "listToolFiles",
      "readToolFile",
      "getToolDocs",
      "executeToolCode",
    ]);
    expect(
      codeMode.virtualTools.tools(caller, {
        includeClients: new Set(["plain"]),
      }),
    ).toEqual([]);
    expect(
      codeMode.extraTools({
        caller,
        headers: {},
        config: GatewayConfig.parse({}),
        filter: { excludeClients: new Set(["math", "weather"]) },
      }),
    ).toEqual([]);
    expect(
      codeMode.call(
        "listToolFiles",
        {},
        { ...ctx, filter: { includeClients: new Set(["plain"]) } },
      ),
    ).toBeUndefined();
  });

  it("leaves names that are not meta-tools to others", () => {
    expect(setup().codeMode.call("math_add", {}, ctx)).toBeUndefined();
  });

  it("classifies discovery as auto and a script by the tools it calls", () => {
    const extras = setup().codeMode.extraTools({
      caller,
      headers: {},
      config: GatewayConfig.parse({}),
      filter: {},
    });
    const byName = new Map(extras.map((x) => [x.name, x]));
    expect(byName.get("listToolFiles")?.classify({})).toBe("auto");
    expect(
      byName.get("readToolFile")?.classify({ fileName: "servers/math.pyi" }),
    ).toBe("auto");
    expect(
      byName.get("getToolDocs")?.classify({ server: "math", tool: "add" }),
    ).toBe("auto");
    expect(
      byName
        .get("executeToolCode")
        ?.classify({ code: "result = math.add(a=1, b=2)" }),
    ).toBe("auto");
    expect(
      byName
        .get("executeToolCode")
        ?.classify({ code: "result = weather.alerts()" }),
    ).toBe("manual");
  });

  it("answers invalid arguments as a tool error", async () => {
    const { codeMode } = setup();
    const bad = await codeMode.call("readToolFile", { fileName: 3 }, ctx);
    expect(bad?.isError).toBe(true);
    expect(textOf(bad!)).toMatch(
      /^invalid arguments for readToolFile: fileName: /,
    );
    const noCode = await codeMode.call("executeToolCode", {}, ctx);
    expect(textOf(noCode!)).toMatch(
      /^invalid arguments for executeToolCode: code: /,
    );
  });

  it("reads the binding level from the config", async () => {
    expect(
      textOf(
        (await setup({ code_mode_binding_level: "tool" }).codeMode.call(
          "listToolFiles",
          {},
          ctx,
        ))!,
      ),
    ).toContain("    add.pyi");
  });

  it("returns {result, logs} as text and structured content, and records each execution's status", async () => {
    const { codeMode, recorder } = setup({ tool_execution_timeout: "200ms" });
    const ok = await codeMode.call(
      "executeToolCode",
      { code: 'print("hi")\nresult = math.add(a=2, b=3)' },
      ctx,
    );
    expect(ok?.structuredContent).toEqual({ result: 5, logs: ["hi"] });
    expect(JSON.parse(textOf(ok!))).toEqual({ result: 5, logs: ["hi"] });
    const failed = await codeMode.call(
      "executeToolCode",
      { code: "result = 1 // 0" },
      ctx,
    );
    expect(failed?.isError).toBe(true);
    expect(textOf(failed!)).toMatch(
      /^executeToolCode failed: code\.star:1:\d+: .*division by zero/,
    );
    await codeMode.call(
      "executeToolCode",
      { code: "while True:\n    pass" },
      ctx,
    );
    expect(recorder.statuses).toEqual(["success", "error", "timeout"]);
  });

  it("runs a script through the chat seam with the timeout the agent loop passes", async () => {
    const extras = setup().codeMode.extraTools({
      caller,
      headers: {},
      config: GatewayConfig.parse({}),
      filter: {},
    });
    const exec = extras.find((x) => x.name === "executeToolCode");
    const outcome = await exec?.execute(
      { code: "while True:\n    pass" },
      { ...ctx, caller, timeoutMs: 100 },
    );
    expect(outcome?.isError).toBe(true);
    expect(outcome?.text).toContain("tool_execution_timeout (100 ms)");
  });
});
