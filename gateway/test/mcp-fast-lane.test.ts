/**
 * POST /mcp on its fast lane (http/fast-lanes.ts): real HTTP reaches the lane, `app.inject()`
 * reaches the fastify route of the same app, and both must answer alike. Also what the lane
 * owes every route: request ids, body limits on a real socket, metrics (499 for a client that
 * leaves), and 503 with Connection: close while the app closes.
 */
import { connect } from "node:net";

import { afterAll, beforeAll, describe, expect, test } from "vitest";

import {
  type RunningGateway,
  startGatewayApp,
} from "./fixtures/gateway-app.js";
import { everythingStdio } from "./fixtures/servers.js";
import { parseMetrics } from "./telemetry-fixture.js";

const LIMIT = 4096;
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

let g: RunningGateway;

beforeAll(async () => {
  g = await startGatewayApp({
    server: { body_limit_mcp: LIMIT, log_level: "silent" },
    client: { allowed_origins: ["https://app.example"] },
    mcp: { client_configs: [everythingStdio()] },
  });
  await g.runtime.upstream.waitConnected("everything", 30_000);
}, 60_000);

afterAll(async () => {
  await g.close();
});

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

async function viaLane(
  body: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await fetch(`${g.base}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body,
  });
  return {
    status: res.status,
    type: res.headers.get("content-type") ?? undefined,
    body: await res.text(),
  };
}

async function viaFastify(
  body: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await g.app.inject({
    method: "POST",
    url: "/mcp",
    headers: { ...HEADERS, ...headers },
    payload: body,
  });
  const type = res.headers["content-type"];
  return {
    status: res.statusCode,
    type: typeof type === "string" ? type : undefined,
    body: res.body,
  };
}

const rpc = (method: string, params?: unknown, id: unknown = 1): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    ...(params === undefined ? {} : { params }),
  });

describe("POST /mcp: the fast lane and the fastify route answer alike", () => {
  test.each([
    [
      "a tools/call",
      rpc("tools/call", {
        name: "everything_echo",
        arguments: { message: "lane" },
      }),
      {},
    ],
    ["a ping", rpc("ping"), {}],
    ["an unknown method", rpc("resources/list"), {}],
    [
      "an unknown tool",
      rpc("tools/call", { name: "nope_tool", arguments: {} }),
      {},
    ],
    [
      "arguments that are not an object",
      rpc("tools/call", { name: "everything_echo", arguments: [1] }),
      {},
    ],
    ["truncated JSON", '{"jsonrpc":"2.0","id":1,"meth', {}],
    ["a batch", `[${rpc("ping")}]`, {}],
    ["a wrong version", '{"jsonrpc":"1.0","id":1,"method":"ping"}', {}],
    [
      "deep nesting",
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(80)}${"]".repeat(80)}}}`,
      {},
    ],
    [
      "a notification",
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      {},
    ],
    ["a notification with an id", rpc("notifications/initialized"), {}],
    ["an origin not allowed", rpc("ping"), { origin: "https://evil.example" }],
    ["an allowed origin", rpc("ping"), { origin: "https://app.example" }],
    [
      "a forged session id",
      rpc("ping"),
      { "mcp-session-id": "forged.session" },
    ],
    [
      "a body over the limit",
      rpc("tools/call", {
        name: "everything_echo",
        arguments: { message: "x".repeat(LIMIT) },
      }),
      {},
    ],
  ])("%s", async (_what, body, headers: Record<string, string>) => {
    const lane = await viaLane(body, headers);
    const route = await viaFastify(body, headers);
    expect(lane.status).toBe(route.status);
    expect(lane.body).toBe(route.body);
    if (route.status !== 202) expect(lane.type).toBe(route.type);
  });

  test("the tools/call through the lane reaches the upstream tool", async () => {
    const lane = await viaLane(
      rpc(
        "tools/call",
        { name: "everything_echo", arguments: { message: "über lane" } },
        "a-1",
      ),
    );
    expect(lane.status).toBe(200);
    expect(JSON.parse(lane.body)).toEqual({
      jsonrpc: "2.0",
      id: "a-1",
      result: { content: [{ type: "text", text: "Echo: über lane" }] },
    });
  });

  test("initialize issues a session id that the lane then accepts", async () => {
    const res = await fetch(`${g.base}/mcp`, {
      method: "POST",
      headers: HEADERS,
      body: rpc("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      }),
    });
    const session = res.headers.get("mcp-session-id");
    expect(session).toBeTruthy();
    const ping = await viaLane(rpc("ping", undefined, 2), {
      "mcp-session-id": session ?? "",
    });
    expect(JSON.parse(ping.body)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: {},
    });
  });
});

describe("what the lane owes every route", () => {
  test("keeps a sane x-request-id and replaces one that could forge log lines", async () => {
    const kept = await fetch(`${g.base}/mcp`, {
      method: "POST",
      headers: { ...HEADERS, "x-request-id": "trace-42" },
      body: rpc("ping"),
    });
    expect(kept.headers.get("x-request-id")).toBe("trace-42");
    const replaced = await fetch(`${g.base}/mcp`, {
      method: "POST",
      headers: { ...HEADERS, "x-request-id": 'two words"}' },
      body: rpc("ping"),
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("refuses a chunked body that grows past the limit with 413 and closes the connection", async () => {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(new URL(g.base).port), "127.0.0.1");
      let seen = "";
      socket.on("data", (d: Buffer) => (seen += d.toString("latin1")));
      socket.on("close", () => resolve(seen));
      socket.on("error", reject);
      const chunk = "x".repeat(1500);
      socket.write(
        "POST /mcp HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      for (let i = 0; i < 4; i++)
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain("connection: close");
    expect(answer).toContain(`Request body is larger than ${LIMIT} bytes`);
  });

  test("counts lane requests in the request metrics, and a client that leaves mid-body as 499", async () => {
    const before = await scrape499();
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(g.base).port), "127.0.0.1", () => {
        socket.write(
          'POST /mcp HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"',
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on("error", reject);
    });
    await expect.poll(scrape499, { timeout: 2000 }).toBe(before + 1);
    const text = await (await fetch(`${g.base}/metrics`)).text();
    const ok = parseMetrics(text)
      .get("http_requests_total")
      ?.metrics.find(
        (s) => s.labels.path === "/mcp" && s.labels.status === "200",
      );
    expect(Number(ok?.value ?? 0)).toBeGreaterThan(10);
  });
});

async function scrape499(): Promise<number> {
  const text = await (await fetch(`${g.base}/metrics`)).text();
  const s = parseMetrics(text)
    .get("http_requests_total")
    ?.metrics.find(
      (m) => m.labels.path === "/mcp" && m.labels.status === "499",
    );
  return Number(s?.value ?? 0);
}

describe("closing", () => {
  test("answers 503 with Connection: close on a kept-alive socket once the app closes", async () => {
    const own = await startGatewayApp({
      server: { log_level: "silent" },
      mcp: { client_configs: [] },
    });
    const port = Number(new URL(own.base).port);
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) =>
      socket.once("connect", () => resolve()),
    );
    const read = (): Promise<string> =>
      new Promise((resolve) => {
        let seen = "";
        const onData = (d: Buffer): void => {
          seen += d.toString("latin1");
          if (/\r\n\r\n[\s\S]*\}$/.test(seen)) {
            socket.off("data", onData);
            resolve(seen);
          }
        };
        socket.on("data", onData);
      });
    const body = rpc("ping");
    const request = `POST /mcp HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    socket.write(request);
    expect(await read()).toMatch(/^HTTP\/1\.1 200 /);
    // A request arriving while closing: the lane sees it on the open keep-alive socket.
    own.app.fastLanes.closing = true;
    socket.write(request);
    const refused = await read();
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused.toLowerCase()).toContain("connection: close");
    expect(refused).toContain("TG_ERR_SHUTTING_DOWN");
    socket.destroy();
    await own.close();
  });
});
