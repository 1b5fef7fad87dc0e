import { pipeline } from "node:stream/promises";

import { afterEach, describe, expect, it } from "vitest";

import { GatewayError } from "../src/errors.js";
import { H1Pool } from "../src/h1client/index.js";
import type { TestServer } from "./fixtures/h1-servers.js";
import { httpServer, rawServer, sleep, until } from "./fixtures/h1-servers.js";

let server: TestServer | undefined;
let pool: H1Pool | undefined;

afterEach(async () => {
  pool?.destroy();
  await server?.close();
  server = undefined;
  pool = undefined;
});

function get(
  p: H1Pool,
  extra: {
    signal?: AbortSignal;
    headersTimeoutMs?: number;
    bodyTimeoutMs?: number;
  } = {},
) {
  return p.request({ method: "GET", path: "/", headers: {}, ...extra });
}

describe("timeouts", () => {
  it("rejects with TG_ERR_TIMEOUT when the head is later than headersTimeoutMs", async () => {
    server = await httpServer((_req, res) =>
      setTimeout(() => res.end("late"), 500),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const started = Date.now();
    const err = await get(pool, { headersTimeoutMs: 50 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GatewayError);
    expect(err).toMatchObject({
      code: "TG_ERR_TIMEOUT",
      message: `the headers timeout of 50 ms expired waiting for 127.0.0.1:${server.port}`,
    });
    expect(Date.now() - started).toBeLessThan(400);
    await until(() => pool!.stats.sockets === 0);
  });

  it("rejects text() with TG_ERR_TIMEOUT when body bytes stop for longer than bodyTimeoutMs", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "10" });
      res.write("12345");
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool, { bodyTimeoutMs: 50 });
    await expect(res.text()).rejects.toMatchObject({
      code: "TG_ERR_TIMEOUT",
      message: expect.stringContaining("the body timeout of 50 ms"),
    });
  });

  it("does not fire the body timeout while bytes keep coming, gaps shorter than the timeout", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      let n = 0;
      const tick = setInterval(() => {
        res.write(String(n));
        if (++n === 6) {
          clearInterval(tick);
          res.end();
        }
      }, 30);
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool, { bodyTimeoutMs: 100 });
    expect(await res.text()).toBe("012345");
  });
});

describe("aborts", () => {
  it("rejects with the signal's reason when aborted before the head, and closes the socket", async () => {
    server = await httpServer((_req, res) =>
      setTimeout(() => res.end("late"), 1000),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const controller = new AbortController();
    const pending = get(pool, { signal: controller.signal });
    await until(() => server!.connections() === 1);
    const reason = new Error("caller went away");
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await until(() => server!.open() === 0);
  });

  it("rejects with an AbortError when aborted without a reason", async () => {
    server = await httpServer(() => undefined);
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const controller = new AbortController();
    const pending = get(pool, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects an already-aborted signal without connecting", async () => {
    server = await httpServer((_req, res) => res.end("no"));
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const reason = new Error("already gone");
    await expect(get(pool, { signal: AbortSignal.abort(reason) })).rejects.toBe(
      reason,
    );
    await sleep(20);
    expect(server.connections()).toBe(0);
    expect(pool.stats.sockets).toBe(0);
  });

  it("removes a queued request when it is aborted, and the rest still run", async () => {
    server = await httpServer((_req, res) =>
      setTimeout(() => res.end("ok"), 30),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const controller = new AbortController();
    const first = get(pool);
    const aborted = get(pool, { signal: controller.signal });
    const third = get(pool);
    expect(pool.stats.queued).toBe(2);
    controller.abort(new Error("not needed"));
    expect(pool.stats.queued).toBe(1);
    await expect(aborted).rejects.toThrow("not needed");
    expect(await (await first).text()).toBe("ok");
    expect(await (await third).text()).toBe("ok");
    expect(server.connections()).toBe(1);
  });

  it("rejects text() when aborted during the body", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("partial");
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const controller = new AbortController();
    const res = await get(pool, { signal: controller.signal });
    const text = res.text();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(text).rejects.toBe(reason);
    await until(() => server!.open() === 0);
  });

  it("destroys the stream when aborted during the body", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const controller = new AbortController();
    const res = await get(pool, { signal: controller.signal });
    const stream = res.stream();
    const chunks: string[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c.toString()));
    await until(() => chunks.length === 1);
    const reason = new Error("stop streaming");
    const done = new Promise((resolve) => stream.on("error", resolve));
    controller.abort(reason);
    expect(await done).toBe(reason);
    expect(stream.destroyed).toBe(true);
    expect(chunks).toEqual(["partial"]);
  });
});

describe("failures", () => {
  it("rejects text() with TG_ERR_UPSTREAM when the socket closes mid-body", async () => {
    server = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part");
      setTimeout(() => socket.destroy(), 20);
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool);
    await expect(res.text()).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: `the connection to 127.0.0.1:${server.port} closed before the response was complete`,
    });
  });

  it("rejects the request with TG_ERR_UPSTREAM when the socket closes before the head", async () => {
    server = await rawServer((socket) => socket.end("HTTP/1.1 200 O"));
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    await expect(get(pool)).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: expect.stringMatching(
        /closed before the response was complete$/,
      ),
    });
  });

  it("rejects a chunked body cut short by the server closing", async () => {
    server = await rawServer((socket) =>
      socket.end(
        "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel",
      ),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool);
    await expect(res.text()).rejects.toMatchObject({ code: "TG_ERR_UPSTREAM" });
  });

  it("rejects text() for a body larger than maxBodyBytes, naming the limit, and does not reuse the socket", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-length": "5000" }).flushHeaders();
      setTimeout(() => res.end("x".repeat(5000)), 20); // still in flight when text() is called
    });
    pool = new H1Pool(server.origin, { maxSockets: 1, maxBodyBytes: 1000 });
    const res = await get(pool);
    await expect(res.text()).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: `the response body from 127.0.0.1:${server.port} is larger than the 1000-byte limit`,
    });
    const big = await get(pool);
    await expect(big.buffer()).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
    });
    expect(server.connections()).toBe(2);
  });

  it("does not limit stream() by maxBodyBytes", async () => {
    server = await httpServer((_req, res) => res.end("x".repeat(5000)));
    pool = new H1Pool(server.origin, { maxSockets: 1, maxBodyBytes: 1000 });
    let total = 0;
    for await (const chunk of (await get(pool)).stream())
      total += (chunk as Buffer).length;
    expect(total).toBe(5000);
  });

  const injections: [string, Record<string, string>, string, RegExp][] = [
    [
      "a CRLF in a header value",
      { "x-a": "1\r\nx-evil: 1" },
      "/",
      /request header "x-a" contains CR, LF or NUL/,
    ],
    [
      "a bare LF in a header value",
      { "x-a": "1\nx" },
      "/",
      /"x-a" contains CR, LF or NUL/,
    ],
    [
      "a NUL in a header value",
      { "x-a": "a\0b" },
      "/",
      /"x-a" contains CR, LF or NUL/,
    ],
    [
      "a CRLF in a header name",
      { "x-a\r\nx-evil": "1" },
      "/",
      /request header name "x-a\\r\\nx-evil" is not a valid token/,
    ],
    ["a space in the path", {}, "/a b", /request path "\/a b"/],
    ["a CRLF in the path", {}, "/a\r\nx: y", /request path/],
  ];

  it.each(injections)(
    "refuses %s with TG_ERR_VALIDATION before connecting",
    async (_name, headers, path, message) => {
      server = await httpServer((_req, res) =>
        res.end("should not be reached"),
      );
      pool = new H1Pool(server.origin, { maxSockets: 1 });
      const err = await pool
        .request({ method: "POST", path, headers, body: "{}" })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({
        code: "TG_ERR_VALIDATION",
        message: expect.stringMatching(message),
      });
      await sleep(20);
      expect(server.connections()).toBe(0);
    },
  );
});

describe("stream()", () => {
  it("delivers the first chunk before the server writes the second", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let secondWritten = false;
    server = await httpServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("chunk 1\n");
      void gate.then(() => {
        secondWritten = true;
        res.end("chunk 2\n");
      });
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const stream = (await get(pool)).stream();
    const seen: string[] = [];
    for await (const chunk of stream) {
      seen.push(
        `${(chunk as Buffer).toString()}|second written: ${secondWritten}`,
      );
      release();
    }
    expect(seen).toEqual([
      "chunk 1\n|second written: false",
      "chunk 2\n|second written: true",
    ]);
    await until(() => pool!.stats.idle === 1);
    expect(server.connections()).toBe(1);
  });

  it("works with stream.pipeline and reuses the socket afterwards", async () => {
    server = await httpServer((_req, res) => {
      res.write("a".repeat(100_000));
      setTimeout(() => res.end("b".repeat(100_000)), 10);
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    let received = "";
    await pipeline(
      (await get(pool)).stream(),
      async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) received += chunk.toString();
      },
    );
    expect(received).toBe("a".repeat(100_000) + "b".repeat(100_000));
    expect(await (await get(pool)).text()).toHaveLength(200_000);
    expect(server.connections()).toBe(1);
  });

  it("closes the socket when the caller destroys the stream mid-body", async () => {
    server = await httpServer((_req, res) => {
      res.writeHead(200);
      res.write("first");
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const stream = (await get(pool)).stream();
    await new Promise((resolve) => stream.once("data", resolve));
    stream.destroy();
    await until(() => server!.open() === 0);
    expect(pool.stats.sockets).toBe(0);
  });

  it("ends at once for a body that was complete before stream() was called", async () => {
    server = await httpServer((_req, res) => res.end("small"));
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool);
    await sleep(20);
    const chunks: Buffer[] = [];
    for await (const chunk of res.stream()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("small");
  });
});
