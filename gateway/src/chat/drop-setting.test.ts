import { describe, expect, it } from "vitest";

import { GatewayConfig } from "../config/schema.js";
import { DropSetting } from "./drop-setting.js";

describe("DropSetting (drop_excess_requests)", () => {
  it("starts from the config, with config.* winning over client.*", () => {
    const cfg = GatewayConfig.parse({
      client: { drop_excess_requests: false },
      config: { drop_excess_requests: true },
    });
    expect(new DropSetting(() => cfg).get()).toBe(true);
  });

  it("keeps a runtime value until the config's own value changes", () => {
    let cfg = GatewayConfig.parse({});
    const drop = new DropSetting(() => cfg);
    drop.set(true);
    expect(drop.get()).toBe(true);
    cfg = GatewayConfig.parse({ server: { port: 1 } });
    expect(drop.get()).toBe(true);
    cfg = GatewayConfig.parse({ client: { drop_excess_requests: true } });
    expect(drop.get()).toBe(true);
    cfg = GatewayConfig.parse({ client: { drop_excess_requests: false } });
    expect(drop.get()).toBe(false);
  });
});
