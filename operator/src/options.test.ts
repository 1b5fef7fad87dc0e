import { describe, expect, it } from "vitest";

import { parseFlags } from "./options.js";

describe("parseFlags", () => {
  it("applies defaults from the pod's environment", () => {
    const f = parseFlags([], { POD_NAMESPACE: "toolgate", POD_NAME: "op-0" });
    expect(f).toMatchObject({
      namespaces: ["toolgate"],
      gatewayNamespace: "toolgate",
      gatewayConfigMap: "toolgate-gateway",
      gatewaySecret: "toolgate-gateway",
      leaseName: "toolgate-operator-toolgate-gateway",
      identity: "op-0",
      healthPort: 8081,
      statusIntervalMs: 10_000,
    });
    expect(f.redisUrl).toBeUndefined();
  });

  it("reads every flag, with namespaces repeated or comma-separated", () => {
    const f = parseFlags(
      [
        "--namespace",
        "a,b",
        "--namespace",
        "c",
        "--gateway-namespace",
        "gw",
        "--gateway-config-map",
        "cfg",
        "--gateway-secret",
        "sec",
        "--redis-url",
        "redis://r:6379",
        "--health-port",
        "0",
        "--status-interval",
        "500ms",
      ],
      {},
    );
    expect(f).toMatchObject({
      namespaces: ["a", "b", "c"],
      gatewayNamespace: "gw",
      gatewayConfigMap: "cfg",
      gatewaySecret: "sec",
      redisUrl: "redis://r:6379",
      healthPort: 0,
      statusIntervalMs: 500,
      leaseName: "toolgate-operator-cfg",
    });
  });

  it.each([
    [["--redis-url", "http://x"], /--redis-url must start with redis:\/\//],
    [
      ["--gateway-config-map", "Bad_Name"],
      /--gateway-config-map must be a Kubernetes object name/,
    ],
    [
      ["--status-interval", "soon"],
      /--status-interval "soon" is not a duration/,
    ],
    [["--health-port", "70000"], /healthPort/],
    [["--unknown"], /Unknown option/],
  ])("rejects %j", (argv, message) => {
    expect(() => parseFlags(argv, {})).toThrow(message);
  });
});
