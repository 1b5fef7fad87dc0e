/**
 * The backoff of SPEC 8.2 at the manager level, under vitest fake timers and the system
 * clock: a server answering HTTP 500 gets its 6 attempts exactly 1, 2, 4, 8 and 16 s apart.
 */
import { afterEach, expect, it, vi } from "vitest";

import { createUpstreamManager } from "../src/upstream/index.js";
import { startFaultHttp } from "./fixtures/fault-server.js";
import { gatewayConfig, silentLogger } from "./fixtures/upstream-harness.js";

afterEach(() => {
  vi.useRealTimers();
});

it("spaces the connection attempts to a failing server 1, 2, 4, 8 and 16 s apart, then gives up", async () => {
  const server = await startFaultHttp({ httpStatus: 500 });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const manager = createUpstreamManager({ logger: silentLogger() });
  try {
    await manager.apply(
      gatewayConfig([
        {
          name: "failing",
          connection_type: "http",
          connection_string: server.mcpUrl,
          tools_to_execute: ["*"],
        },
      ]),
    );
    const attempts = (): number => server.requestHeaders.length;
    await vi.waitFor(() => expect(attempts()).toBe(1));
    for (const [wait, expected] of [
      [1000, 2],
      [2000, 3],
      [4000, 4],
      [8000, 5],
      [16_000, 6],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(attempts()).toBe(expected - 1);
      await vi.advanceTimersByTimeAsync(1);
      await vi.waitFor(() => expect(attempts()).toBe(expected));
    }
    await vi.waitFor(() => expect(manager.get("failing")?.state).toBe("error"));
    expect(manager.get("failing")?.lastError).toMatch(
      /HTTP 500.*gave up after 6 attempts/,
    );
  } finally {
    vi.useRealTimers();
    await manager.close();
    await server.close();
  }
});
