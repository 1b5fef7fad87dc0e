import { describe, expect, test } from "vitest";

import { GatewayConfig, type GatewayConfigInput } from "../config/schema.js";
import { GatewayError } from "../errors.js";
import { createGovernance, extractVirtualKey } from "./index.js";

const base = (over: Partial<GatewayConfigInput> = {}): GatewayConfig =>
  GatewayConfig.parse({
    governance: {
      virtual_keys: [
        {
          id: "vk1",
          name: "team_a",
          value: "sk-alpha",
          mcp_configs: [
            { mcp_client_name: "everything", tools_to_execute: ["echo"] },
          ],
        },
        {
          name: "team_b",
          value: "env.TEAM_B_KEY",
          mcp_configs: [
            { mcp_client_name: "everything", tools_to_execute: ["*"] },
          ],
        },
        { name: "retired", value: "sk-old", is_active: false },
      ],
    },
    ...over,
  });

const secrets = { env: { TEAM_B_KEY: "sk-beta" } };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return e instanceof GatewayError ? e.code : "not a GatewayError";
  }
}

describe("extractVirtualKey", () => {
  test.each([
    [{ "x-bf-virtual-key": "a" }, "a"],
    [{ "x-api-key": "b" }, "b"],
    [{ authorization: "Bearer c" }, "c"],
    [{ authorization: "bearer   d " }, "d"],
    [{ authorization: "Basic xyz" }, undefined],
    [
      { "x-bf-virtual-key": "a", "x-api-key": "b", authorization: "Bearer c" },
      "a",
    ],
    [{ "x-api-key": "", authorization: "Bearer c" }, "c"],
    [{}, undefined],
  ])("reads %j as %s", (headers, expected) => {
    expect(extractVirtualKey(headers)).toBe(expected);
  });
});

describe("VirtualKeyGovernance", () => {
  test.each([
    ["x-bf-virtual-key", { "x-bf-virtual-key": "sk-alpha" }],
    ["X-Api-Key", { "x-api-key": "sk-alpha" }],
    ["Authorization: Bearer", { authorization: "Bearer sk-alpha" }],
  ])("accepts the key in %s", (_name, headers) => {
    const caller = createGovernance(base(), secrets).resolveCaller(headers);
    expect(caller.virtualKey).toEqual({ id: "vk1", name: "team_a" });
    expect(caller.allowance?.get("everything")).toEqual(new Set(["echo"]));
  });

  test("resolves env. key values and maps * to all tools of the client", () => {
    const caller = createGovernance(base(), secrets).resolveCaller({
      "x-api-key": "sk-beta",
    });
    expect(caller.virtualKey).toEqual({ id: "team_b", name: "team_b" });
    expect(caller.allowance?.get("everything")).toBe("*");
  });

  test("gives the global tool set to a request without a key when enforcement is off", () => {
    expect(createGovernance(base(), secrets).resolveCaller({})).toEqual({});
  });

  test.each([
    [
      "an unknown key",
      { "x-api-key": "sk-nope" },
      "TG_ERR_VIRTUAL_KEY_INVALID",
    ],
    [
      "an inactive key",
      { "x-api-key": "sk-old" },
      "TG_ERR_VIRTUAL_KEY_INVALID",
    ],
  ])("rejects %s with 401 instead of falling back", (_what, headers, code) => {
    expect(
      codeOf(() => createGovernance(base(), secrets).resolveCaller(headers)),
    ).toBe(code);
  });

  test("requires a key on every request when enforce_governance_header is true", () => {
    const gov = createGovernance(
      base({ client: { enforce_governance_header: true } }),
      secrets,
    );
    expect(codeOf(() => gov.resolveCaller({}))).toBe(
      "TG_ERR_VIRTUAL_KEY_REQUIRED",
    );
    expect(
      gov.resolveCaller({ "x-bf-virtual-key": "sk-alpha" }).virtualKey?.name,
    ).toBe("team_a");
  });

  test("ignores bearer tokens when no virtual keys exist and enforcement is off", () => {
    const gov = createGovernance(GatewayConfig.parse({}));
    expect(
      gov.resolveCaller({ authorization: "Bearer sk-provider-key" }),
    ).toEqual({});
  });

  test("keeps the old key set when a reload names an unset variable", () => {
    const gov = createGovernance(base(), secrets);
    const broken = GatewayConfig.parse({
      governance: {
        virtual_keys: [{ name: "x", value: "env.NOT_SET_ANYWHERE" }],
      },
    });
    expect(codeOf(() => gov.update(broken))).toBe("TG_ERR_CONFIG_ENV_MISSING");
    expect(
      gov.resolveCaller({ "x-api-key": "sk-alpha" }).virtualKey?.name,
    ).toBe("team_a");
  });

  test("merges two mcp_configs entries for the same client", () => {
    const cfg = GatewayConfig.parse({
      governance: {
        virtual_keys: [
          {
            name: "k",
            value: "sk-k",
            mcp_configs: [
              { mcp_client_name: "a", tools_to_execute: ["x"] },
              { mcp_client_name: "a", tools_to_execute: ["y"] },
            ],
          },
        ],
      },
    });
    expect(
      createGovernance(cfg)
        .resolveCaller({ "x-api-key": "sk-k" })
        .allowance?.get("a"),
    ).toEqual(new Set(["x", "y"]));
  });
});
