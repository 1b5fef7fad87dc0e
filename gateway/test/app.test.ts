import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { pino } from "pino";
import { afterEach, describe, expect, test } from "vitest";
import { z } from "zod";

import { buildApp } from "../src/app.js";
import { parseConfig } from "../src/config/load.js";
import type { GatewayConfigInput } from "../src/config/schema.js";
import { GatewayError } from "../src/errors.js";
import { adminAuth } from "../src/http/admin-auth.js";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  err?: { message: string; stack: string };
}

/** Routes that fail in every way a handler can, registered the way feature plugins are. */
const failing: FastifyPluginAsync = (app) => {
  app.get("/api/gateway-error", () => {
    throw new GatewayError(
      "TG_ERR_CLIENT_NOT_FOUND",
      'no MCP client with id "x"',
      { id: "x" },
    );
  });
  app.get("/api/conflict", () => {
    throw new GatewayError("TG_ERR_CLIENT_NAME_TAKEN");
  });
  app.get("/api/crash", () => {
    throw new Error("connect ECONNREFUSED 10.0.0.7:5432 password=hunter2");
  });
  app.get("/api/crash-async", async () => {
    await Promise.resolve();
    throw new TypeError(
      "Cannot read properties of undefined (reading 'secretThing')",
    );
  });
  app.post("/api/zod", (request) => {
    z.strictObject({
      name: z.string().regex(/^[a-z]+$/, { message: "lowercase letters only" }),
      tools: z.array(z.string()),
    }).parse(request.body);
    return { ok: true };
  });
  app.post(
    "/api/schema",
    {
      schema: {
        body: {
          type: "object",
          properties: {
            name: { type: "string" },
            tools: { type: "array", items: { type: "string" } },
          },
          required: ["name"],
          additionalProperties: false,
        },
        querystring: {
          type: "object",
          properties: { limit: { type: "integer" } },
        },
      },
    },
    () => ({ ok: true }),
  );
  app.post("/api/echo", (request) => ({
    size: JSON.stringify(request.body).length,
  }));
  app.post("/mcp", (request) => ({
    size: JSON.stringify(request.body).length,
  }));
  app.post("/v1/chat/completions", (request) => ({
    size: JSON.stringify(request.body).length,
  }));
  app.post("/api/own-limit", { bodyLimit: 2048 }, (request) => ({
    size: JSON.stringify(request.body).length,
  }));
  app.get("/api/admin", { preHandler: adminAuth(() => currentConfig) }, () => ({
    ok: true,
  }));
  return Promise.resolve();
};

let currentConfig = parseConfig({});

async function build(
  input: GatewayConfigInput = {},
  deps: Partial<Parameters<typeof buildApp>[1]> = {},
) {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "debug" },
    { write: (s: string) => lines.push(JSON.parse(s) as LogLine) },
  );
  currentConfig = parseConfig(input);
  const app = await buildApp(currentConfig, {
    logger,
    plugins: [{ plugin: failing }],
    version: "9.9.9",
    ...deps,
  });
  apps.push(app);
  return { app, lines };
}

const json = (size: number) => JSON.stringify({ data: "x".repeat(size) });

describe("error envelope", () => {
  test.each<
    [
      string,
      {
        method: "GET" | "POST";
        url: string;
        payload?: string;
        headers?: Record<string, string>;
      },
      number,
      object,
    ]
  >([
    [
      "a GatewayError keeps its code, message and details",
      { method: "GET", url: "/api/gateway-error" },
      404,
      {
        code: "TG_ERR_CLIENT_NOT_FOUND",
        message: 'no MCP client with id "x"',
        details: { id: "x" },
      },
    ],
    [
      "a conflict is 409",
      { method: "GET", url: "/api/conflict" },
      409,
      {
        code: "TG_ERR_CLIENT_NAME_TAKEN",
        message: "an MCP client with that name exists",
      },
    ],
    [
      "an unknown route is 404",
      { method: "GET", url: "/nowhere?x=1" },
      404,
      { code: "TG_ERR_NOT_FOUND", message: "no route for GET /nowhere" },
    ],
    [
      "a zod error is 400 with field paths",
      {
        method: "POST",
        url: "/api/zod",
        payload: JSON.stringify({ name: "A-1", tools: [1], extra: true }),
        headers: { "content-type": "application/json" },
      },
      400,
      {
        code: "TG_ERR_VALIDATION",
        message: "the request is invalid",
        details: {
          problems: [
            { path: "name", message: "lowercase letters only" },
            {
              path: "tools[0]",
              message: "Invalid input: expected string, received number",
            },
            { path: "extra", message: "unknown field" },
          ],
        },
      },
    ],
    [
      "a fastify schema error is 400 with field paths",
      {
        method: "POST",
        url: "/api/schema",
        payload: JSON.stringify({ tools: [] }),
        headers: { "content-type": "application/json" },
      },
      400,
      {
        code: "TG_ERR_VALIDATION",
        message: "the request is invalid",
        details: {
          problems: [
            {
              path: "body.name",
              message: "must have required property 'name'",
            },
          ],
        },
      },
    ],
    [
      "a fastify schema error on the query names the query",
      {
        method: "POST",
        url: "/api/schema?limit=abc",
        payload: JSON.stringify({ name: "a" }),
        headers: { "content-type": "application/json" },
      },
      400,
      {
        code: "TG_ERR_VALIDATION",
        details: {
          problems: [{ path: "query.limit", message: "must be integer" }],
        },
      },
    ],
    [
      "an unknown body field under a fastify schema is named",
      {
        method: "POST",
        url: "/api/schema",
        payload: JSON.stringify({ name: "a", nmae: "b" }),
        headers: { "content-type": "application/json" },
      },
      400,
      {
        code: "TG_ERR_VALIDATION",
        details: {
          problems: [{ path: "body.nmae", message: "unknown field" }],
        },
      },
    ],
    [
      "malformed JSON is 400",
      {
        method: "POST",
        url: "/api/echo",
        payload: '{"a":',
        headers: { "content-type": "application/json" },
      },
      400,
      { code: "TG_ERR_BODY_INVALID_JSON" },
    ],
    [
      "an unsupported content type is 415",
      {
        method: "POST",
        url: "/api/echo",
        payload: "<a/>",
        headers: { "content-type": "application/xml" },
      },
      415,
      { code: "TG_ERR_UNSUPPORTED_MEDIA_TYPE" },
    ],
    [
      "a body over the /api limit is 413",
      {
        method: "POST",
        url: "/api/echo",
        payload: json(1024 * 1024),
        headers: { "content-type": "application/json" },
      },
      413,
      {
        code: "TG_ERR_BODY_TOO_LARGE",
        message: "the request body is larger than the limit of 1048576 bytes",
        details: { limit_bytes: 1048576 },
      },
    ],
    [
      "a route's own limit wins",
      {
        method: "POST",
        url: "/api/own-limit",
        payload: json(3000),
        headers: { "content-type": "application/json" },
      },
      413,
      { code: "TG_ERR_BODY_TOO_LARGE", details: { limit_bytes: 2048 } },
    ],
  ])("%s", async (_name, request, status, error) => {
    const { app } = await build();
    const res = await app.inject(request);
    expect(res.statusCode).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      error: expect.objectContaining(error) as unknown,
    });
  });

  test.each(["/api/crash", "/api/crash-async"])(
    "an unexpected error at %s is a 500 with no internals, logged with the request id",
    async (url) => {
      const { app, lines } = await build();
      const res = await app.inject({
        method: "GET",
        url,
        headers: { "x-request-id": "trace-123" },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        error: { code: "TG_ERR_INTERNAL", message: "internal error" },
      });
      expect(res.body).not.toMatch(/ECONNREFUSED|hunter2|secretThing|at /);
      const logged = lines.find((l) => l.level === 50);
      expect(logged?.reqId).toBe("trace-123");
      expect(logged?.err?.stack).toBeTruthy();
    },
  );
});

describe("body limits", () => {
  test("/mcp and /v1 take up to body_limit_mcp (4 MiB by default), /api only 1 MiB", async () => {
    const { app } = await build();
    const body = json(2 * 1024 * 1024);
    const headers = { "content-type": "application/json" };
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/mcp",
          payload: body,
          headers,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/v1/chat/completions",
          payload: body,
          headers,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/api/echo",
          payload: body,
          headers,
        })
      ).statusCode,
    ).toBe(413);
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/mcp",
          payload: json(5 * 1024 * 1024),
          headers,
        })
      ).statusCode,
    ).toBe(413);
  });

  test("the limits come from server.body_limit_api and server.body_limit_mcp", async () => {
    const { app } = await build({
      server: { body_limit_api: 2000, body_limit_mcp: 5000 },
    });
    const headers = { "content-type": "application/json" };
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/api/echo",
          payload: json(3000),
          headers,
        })
      ).json(),
    ).toMatchObject({ error: { details: { limit_bytes: 2000 } } });
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/mcp",
          payload: json(3000),
          headers,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: "POST",
          url: "/mcp",
          payload: json(6000),
          headers,
        })
      ).statusCode,
    ).toBe(413);
  });
});

describe("request ids", () => {
  test("a sane incoming x-request-id is kept and echoed; an insane one is replaced", async () => {
    const { app, lines } = await build();
    const kept = await app.inject({
      method: "GET",
      url: "/api/conflict",
      headers: { "x-request-id": "abc-123.def:9" },
    });
    expect(kept.headers["x-request-id"]).toBe("abc-123.def:9");
    expect(
      lines.filter((l) => l.reqId === "abc-123.def:9").map((l) => l.msg),
    ).toEqual([
      "incoming request",
      "an MCP client with that name exists",
      "request completed",
    ]);
    const replaced = await app.inject({
      method: "GET",
      url: "/health",
      headers: { "x-request-id": 'evil"\n{"level":60}' },
    });
    expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const fresh = await app.inject({ method: "GET", url: "/health" });
    expect(fresh.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(fresh.headers["x-request-id"]).not.toBe(
      replaced.headers["x-request-id"],
    );
  });
});

describe("/health and /ready", () => {
  test("probe requests are not logged at info level", async () => {
    const { app, lines } = await build();
    await app.inject({ method: "GET", url: "/health" });
    await app.inject({ method: "GET", url: "/ready" });
    expect(lines).toEqual([]);
  });

  test("/health reports version, uptime and each client's state", async () => {
    const upstream = {
      list: () => [
        { name: "everything", state: "connected" as const },
        { name: "files", state: "disconnected" as const },
      ],
    };
    const { app } = await build({}, { upstream });
    const res = await app.inject({ method: "GET", url: "/health" });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: "degraded",
      version: "9.9.9",
      clients: { everything: "connected", files: "disconnected" },
    });
    expect(typeof body.uptime_s).toBe("number");
  });

  test("/health is ok with no clients", async () => {
    const { app } = await build();
    expect(
      (await app.inject({ method: "GET", url: "/health" })).json(),
    ).toMatchObject({
      status: "ok",
      clients: {},
    });
  });

  test("/ready is 200 while the state store answers and 503 with the reason when it does not", async () => {
    let up = true;
    const state = {
      ping: () =>
        up
          ? Promise.resolve()
          : Promise.reject(new Error("connection refused")),
    };
    const { app } = await build({}, { state });
    expect(
      (await app.inject({ method: "GET", url: "/ready" })).statusCode,
    ).toBe(200);
    up = false;
    const down = await app.inject({ method: "GET", url: "/ready" });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toEqual({
      status: "not_ready",
      reason: "state store unavailable: connection refused",
    });
  });

  test("/ready is 503 when the state store hangs", async () => {
    const state = { ping: () => new Promise<void>(() => undefined) };
    const { app } = await build({}, { state, readyTimeoutMs: 20 });
    const res = await app.inject({ method: "GET", url: "/ready" });
    expect(res.statusCode).toBe(503);
    expect(res.json().reason).toBe(
      "state store unavailable: no answer within 20 ms",
    );
  });
});

describe("admin auth", () => {
  const basic = (user: string, pass: string) =>
    `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

  test("without server.auth, loopback callers pass and others get 403", async () => {
    const { app } = await build();
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          remoteAddress: "127.0.0.1",
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          remoteAddress: "::1",
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          remoteAddress: "::ffff:127.0.0.1",
        })
      ).statusCode,
    ).toBe(200);
    const remote = await app.inject({
      method: "GET",
      url: "/api/admin",
      remoteAddress: "10.1.2.3",
      headers: { "x-forwarded-for": "127.0.0.1" },
    });
    expect(remote.statusCode).toBe(403);
    expect(remote.json().error.code).toBe("TG_ERR_FORBIDDEN");
  });

  test("with server.auth, HTTP Basic is required from everyone", async () => {
    const { app } = await build({
      server: { auth: { username: "admin", password: "s3cret" } },
    });
    const none = await app.inject({ method: "GET", url: "/api/admin" });
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Basic realm="toolgate"/);
    expect(none.json().error).toEqual({
      code: "TG_ERR_UNAUTHORIZED",
      message: "HTTP Basic authentication required",
    });
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          headers: { authorization: basic("admin", "wrong") },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          headers: { authorization: basic("root", "s3cret") },
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (
        await app.inject({
          method: "GET",
          url: "/api/admin",
          headers: { authorization: "Bearer s3cret" },
        })
      ).statusCode,
    ).toBe(401);
    const ok = await app.inject({
      method: "GET",
      url: "/api/admin",
      remoteAddress: "10.1.2.3",
      headers: { authorization: basic("admin", "s3cret") },
    });
    expect(ok.statusCode).toBe(200);
  });

  test("a password with a colon and an env reference work", async () => {
    process.env.TOOLGATE_TEST_ADMIN_PW = "a:b:c";
    try {
      const { app } = await build({
        server: {
          auth: { username: "admin", password: "env.TOOLGATE_TEST_ADMIN_PW" },
        },
      });
      expect(
        (
          await app.inject({
            method: "GET",
            url: "/api/admin",
            headers: { authorization: basic("admin", "a:b:c") },
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (
          await app.inject({
            method: "GET",
            url: "/api/admin",
            headers: {
              authorization: basic("admin", "env.TOOLGATE_TEST_ADMIN_PW"),
            },
          })
        ).statusCode,
      ).toBe(401);
    } finally {
      delete process.env.TOOLGATE_TEST_ADMIN_PW;
    }
  });
});
