import { describe, expect, it } from "vitest";

import {
  CHECKSUM_ANNOTATION,
  CONFIG_KEY,
  converged,
  decodeSecret,
  desiredConfigMap,
  desiredSecret,
  MANAGED_BY,
} from "./children.js";
import { render } from "./desired.js";

const target = { namespace: "ns", configMap: "gw", secret: "gw" };
const rendered = render({
  clients: [
    {
      metadata: { name: "c", namespace: "ns" },
      spec: {
        connectionType: "http",
        connectionString: "https://x",
        authType: "headers",
        headers: { A: { secretKeyRef: { name: "s", key: "k" } } },
      },
    },
  ],
  virtualKeys: [],
  secrets: () => ({ k: "v" }),
});

describe("desired ConfigMap and Secret", () => {
  it("carry the config, the values and the checksum annotation", () => {
    const cm = desiredConfigMap(rendered, target);
    expect(cm.data?.[CONFIG_KEY]).toBe(rendered.configJson);
    expect(cm.metadata?.annotations?.[CHECKSUM_ANNOTATION]).toBe(
      rendered.checksum,
    );
    const s = desiredSecret(rendered, target);
    expect(decodeSecret(s)).toEqual({ TG_MCPC_C_HEADER_0: "v" });
    expect(s.metadata?.labels).toEqual(MANAGED_BY);
  });

  it("keep what the chart put on an existing object, and compare equal once converged", () => {
    const existing = {
      metadata: {
        name: "gw",
        labels: { "helm.sh/chart": "toolgate" },
        annotations: { note: "x" },
      },
      data: { "extra.txt": "kept" },
    };
    const cm = desiredConfigMap(rendered, target, existing);
    expect(cm.metadata?.labels).toEqual({
      "helm.sh/chart": "toolgate",
      ...MANAGED_BY,
    });
    expect(cm.data?.["extra.txt"]).toBe("kept");
    expect(converged(existing, cm)).toBe(false);
    expect(converged(cm, desiredConfigMap(rendered, target, cm))).toBe(true);
  });

  it("drop secret keys that are no longer rendered", () => {
    const existing = {
      metadata: { name: "gw" },
      data: { OLD: Buffer.from("x").toString("base64") },
    };
    const s = desiredSecret(rendered, target, existing);
    expect(Object.keys(s.data ?? {})).toEqual(["TG_MCPC_C_HEADER_0"]);
  });

  it("decode stringData as well as data", () => {
    expect(
      decodeSecret({
        data: { a: Buffer.from("1").toString("base64") },
        stringData: { b: "2" },
      }),
    ).toEqual({ a: "1", b: "2" });
  });
});
