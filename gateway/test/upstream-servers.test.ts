/**
 * The upstream manager against the real reference servers from npm: server-everything over
 * stdio, SSE and streamable HTTP, with server-memory over stdio at the same time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createUpstreamManager } from "../src/upstream/index.js";
import type { RunningServer } from "./fixtures/servers.js";
import {
  everythingStdio,
  memoryEnv,
  memoryStdio,
  startEverythingHttp,
  startEverythingSse,
  startFaultHttpChild,
} from "./fixtures/servers.js";
import {
  firstText,
  gatewayConfig,
  silentLogger,
  waitForState,
} from "./fixtures/upstream-harness.js";

describe("upstream manager with the reference servers", () => {
  let http: RunningServer;
  let sse: RunningServer;
  const env = {
    ...process.env,
    ...memoryEnv(),
    TOOLGATE_SECRET_TOKEN: "s3cret",
    TOOLGATE_NOT_NAMED: "hidden",
  };
  const manager = createUpstreamManager({
    logger: silentLogger(),
    secrets: { env },
  });

  beforeAll(async () => {
    [http, sse] = await Promise.all([
      startEverythingHttp(),
      startEverythingSse(),
    ]);
    await manager.apply(
      gatewayConfig([
        everythingStdio("ev_stdio", {
          stdio_config: {
            command: process.execPath,
            args: [everythingStdio().stdio_config?.args?.[0] ?? "", "stdio"],
            envs: ["TOOLGATE_SECRET_TOKEN"],
          },
        }),
        {
          name: "ev_http",
          connection_type: "http",
          connection_string: http.url,
          tools_to_execute: ["*"],
        },
        {
          name: "ev_sse",
          connection_type: "sse",
          connection_string: sse.url,
          tools_to_execute: ["echo", "get-sum"],
        },
        memoryStdio("memory"),
      ]),
    );
    await Promise.all(
      ["ev_stdio", "ev_http", "ev_sse", "memory"].map((id) =>
        manager.waitConnected(id, 20_000),
      ),
    );
  });

  afterAll(async () => {
    await manager.close();
    await Promise.all([http.close(), sse.close()]);
  });

  it("lists the tools of every server under <client>_<tool>", () => {
    const names = manager.registry.list().map((e) => e.name);
    for (const client of ["ev_stdio", "ev_http"]) {
      expect(names).toContain(`${client}_echo`);
      expect(names).toContain(`${client}_get-sum`);
    }
    expect(names).toContain("memory_create_entities");
    expect(names).toContain("memory_read_graph");
    expect(names.filter((n) => n.startsWith("ev_sse_")).sort()).toEqual([
      "ev_sse_echo",
      "ev_sse_get-sum",
    ]);
    expect(names).toEqual(
      [...names].sort((a, b) => {
        const ca = manager.registry.resolve(a)?.client ?? "";
        const cb = manager.registry.resolve(b)?.client ?? "";
        return ca === cb ? (a < b ? -1 : 1) : ca < cb ? -1 : 1;
      }),
    );
  });

  it.each(["ev_stdio", "ev_http", "ev_sse"])(
    "calls echo on %s and returns the upstream result unchanged",
    async (client) => {
      const entry = manager.registry.resolve(`${client}_echo`);
      expect(entry?.definition.inputSchema.type).toBe("object");
      const result = await manager.registry.call(entry!, {
        message: `hello ${client}`,
      });
      expect(result.isError).not.toBe(true);
      expect(firstText(result)).toBe(`Echo: hello ${client}`);
    },
  );

  it("calls get-sum over SSE", async () => {
    const result = await manager.registry.call(
      manager.registry.resolve("ev_sse_get-sum")!,
      { a: 2, b: 40 },
    );
    expect(firstText(result)).toContain("42");
  });

  it("calls the memory server alongside server-everything", async () => {
    const created = await manager.registry.call(
      manager.registry.resolve("memory_create_entities")!,
      {
        entities: [
          {
            name: "toolgate",
            entityType: "project",
            observations: ["aggregates MCP tools"],
          },
        ],
      },
    );
    expect(created.isError).not.toBe(true);
    const graph = await manager.registry.call(
      manager.registry.resolve("memory_read_graph")!,
      {},
    );
    expect(JSON.stringify(graph)).toContain("aggregates MCP tools");
  });

  it("passes a stdio child only the variables named in envs plus the base set", async () => {
    const result = await manager.registry.call(
      manager.registry.resolve("ev_stdio_get-env")!,
      {},
    );
    const childEnv = JSON.parse(firstText(result)) as Record<string, string>;
    expect(childEnv.TOOLGATE_SECRET_TOKEN).toBe("s3cret");
    expect(childEnv.PATH).toBe(process.env.PATH);
    expect(childEnv).not.toHaveProperty("TOOLGATE_NOT_NAMED");
    expect(childEnv).not.toHaveProperty("MEMORY_FILE_PATH");
  });

  it("reports every client as connected with its offered tools", async () => {
    const status = manager.get("ev_sse");
    expect(status).toMatchObject({
      state: "connected",
      connectionType: "sse",
      consecutiveFailures: 0,
    });
    expect([...(status?.tools ?? [])].sort()).toEqual(["echo", "get-sum"]);
    expect(manager.list().map((s) => s.state)).toEqual([
      "connected",
      "connected",
      "connected",
      "connected",
    ]);
    await expect(
      waitForState(manager, "ev_http", "connected"),
    ).resolves.toMatchObject({ name: "ev_http" });
  });
});

describe("the fault fixture as a child process", () => {
  it("serves streamable HTTP and SSE, and takes faults through POST /control", async () => {
    const child = await startFaultHttpChild({ tools: ["echo"] });
    const manager = createUpstreamManager({ logger: silentLogger() });
    try {
      await manager.apply(
        gatewayConfig([
          {
            name: "child_http",
            connection_type: "http",
            connection_string: `${child.url}/mcp`,
            tools_to_execute: ["*"],
          },
          {
            name: "child_sse",
            connection_type: "sse",
            connection_string: `${child.url}/sse`,
            tools_to_execute: ["echo"],
          },
        ]),
      );
      await Promise.all(
        ["child_http", "child_sse"].map((id) =>
          waitForState(manager, id, "connected"),
        ),
      );
      const pid = firstText(
        await manager.registry.call(
          manager.registry.resolve("child_http_fault_pid")!,
          {},
        ),
      );
      expect(Number(pid)).toBe(child.child.pid);
      expect(
        firstText(
          await manager.registry.call(
            manager.registry.resolve("child_sse_echo")!,
            { text: "via sse" },
          ),
        ),
      ).toContain("via sse");
      const res = await fetch(`${child.url}/control`, {
        method: "POST",
        body: JSON.stringify({ httpStatus: 500 }),
      });
      expect(((await res.json()) as { httpStatus: number }).httpStatus).toBe(
        500,
      );
      expect(
        (await fetch(`${child.url}/mcp`, { method: "POST", body: "{}" }))
          .status,
      ).toBe(500);
    } finally {
      await manager.close();
      await child.close();
    }
  });
});
