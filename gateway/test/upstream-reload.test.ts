/**
 * Config reload: `apply` converges on a new client set, rebuilding only the clients whose
 * connection changed. Unchanged stdio children keep running (same pid).
 */
import { afterAll, describe, expect, it } from "vitest";

import type { ClientConfigInput } from "../src/config/schema.js";
import type { RegistryChange } from "../src/registry/types.js";
import { createUpstreamManager } from "../src/upstream/index.js";
import { faultStdio } from "./fixtures/servers.js";
import {
  firstText,
  gatewayConfig,
  silentLogger,
  waitForState,
} from "./fixtures/upstream-harness.js";

describe("config reload", () => {
  const manager = createUpstreamManager({ logger: silentLogger() });
  const removed: string[] = [];
  manager.registry.onChange((c: RegistryChange) => {
    if (c.kind === "client-removed") removed.push(c.client);
  });
  afterAll(() => manager.close());

  const pidOf = async (client: string): Promise<number> => {
    const entry = manager.registry.resolve(`${client}_fault_pid`);
    if (!entry) throw new Error(`${client} offers no fault_pid`);
    return Number(firstText(await manager.registry.call(entry, {})));
  };

  const keep = faultStdio("keep");
  const change = faultStdio("change");
  const drop = faultStdio("drop");

  it("adds, removes and rebuilds only the changed clients while the others keep running", async () => {
    await manager.apply(gatewayConfig([keep, change, drop]));
    await Promise.all(
      ["keep", "change", "drop"].map((id) =>
        waitForState(manager, id, "connected", 30_000),
      ),
    );
    const before = { keep: await pidOf("keep"), change: await pidOf("change") };
    expect(manager.connection("keep")?.pid).toBe(before.keep);

    const changed: ClientConfigInput = faultStdio("change", {
      tools: ["echo", "other"],
    });
    const added = faultStdio("added");
    await manager.apply(gatewayConfig([keep, changed, added]));
    // A removed client is gone as soon as apply resolves.
    expect(manager.get("drop")).toBeUndefined();
    expect(removed).toEqual(["drop"]);
    expect(manager.registry.list().some((e) => e.client === "drop")).toBe(
      false,
    );
    await Promise.all(
      ["change", "added"].map((id) =>
        waitForState(manager, id, "connected", 30_000),
      ),
    );

    expect(await pidOf("keep")).toBe(before.keep);
    expect(await pidOf("change")).not.toBe(before.change);
    expect(manager.registry.resolve("change_other")).toBeDefined();
    expect(manager.registry.resolve("added_echo")).toBeDefined();
    expect(manager.list().map((s) => s.id)).toEqual([
      "keep",
      "change",
      "added",
    ]);
  });

  it("applies tools_to_execute changes in place without restarting the child", async () => {
    const pid = await pidOf("keep");
    await manager.apply(
      gatewayConfig([
        { ...keep, tools_to_execute: ["echo", "fault_pid"] },
        faultStdio("change", { tools: ["echo", "other"] }),
        faultStdio("added"),
      ]),
    );
    expect(
      manager.registry
        .list({ includeClients: new Set(["keep"]) })
        .map((e) => e.tool),
    ).toEqual(["echo", "fault_pid"]);
    expect(manager.get("keep")?.state).toBe("connected");
    expect(await pidOf("keep")).toBe(pid);
  });

  it("closes every connection on close", async () => {
    const statuses = manager.list();
    expect(statuses.length).toBe(3);
    await manager.close();
    expect(manager.list()).toEqual([]);
    expect(manager.registry.list()).toEqual([]);
  });
});
