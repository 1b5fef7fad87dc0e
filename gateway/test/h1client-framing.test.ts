import type { Socket } from "node:net";

import { afterEach, describe, expect, it } from "vitest";

import { GatewayError } from "../src/errors.js";
import { H1Pool } from "../src/h1client/index.js";
import type { TestServer } from "./fixtures/h1-servers.js";
import { httpServer, rawServer, sleep } from "./fixtures/h1-servers.js";

let server: TestServer | undefined;
let pool: H1Pool | undefined;

afterEach(async () => {
  pool?.destroy();
  await server?.close();
  server = undefined;
  pool = undefined;
});

/** A pool against a raw server answering every request with the given pieces, 5 ms apart. */
async function rawPool(...pieces: (string | Buffer)[]): Promise<H1Pool> {
  return rawPoolWith({}, ...pieces);
}

async function rawPoolWith(
  options: { maxHeaderBytes?: number },
  ...pieces: (string | Buffer)[]
): Promise<H1Pool> {
  server = await rawServer((socket: Socket) => {
    void (async () => {
      for (const piece of pieces) {
        socket.write(piece);
        await sleep(5);
      }
    })();
  });
  pool = new H1Pool(server.origin, { maxSockets: 1, ...options });
  return pool;
}

function get(p: H1Pool, path = "/") {
  return p.request({ method: "GET", path, headers: {} });
}

describe("response framing", () => {
  it("reads a Content-Length body and sends host and content-length itself", async () => {
    let seen: Record<string, unknown> = {};
    let body = "";
    server = await httpServer((req, res) => {
      seen = { ...req.headers, method: req.method, url: req.url };
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () =>
        res
          .writeHead(201, {
            "content-type": "application/json",
            "x-Mixed-Case": "yes",
          })
          .end('{"ok":true}'),
      );
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await pool.request({
      method: "POST",
      path: "/mcp?x=1",
      headers: { accept: "application/json" },
      body: "héllo",
    });
    expect(res.status).toBe(201);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(res.headers["x-mixed-case"]).toBe("yes");
    expect(await res.text()).toBe('{"ok":true}');
    expect(seen).toMatchObject({
      method: "POST",
      url: "/mcp?x=1",
      host: `127.0.0.1:${server.port}`,
      "content-length": "6",
      accept: "application/json",
    });
    expect(body).toBe("héllo");
  });

  it("sends a Buffer body with its byte length", async () => {
    let body = Buffer.alloc(0);
    server = await httpServer((req, res) => {
      req.on("data", (c: Buffer) => (body = Buffer.concat([body, c])));
      req.on("end", () => res.end(String(req.headers["content-length"])));
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await pool.request({
      method: "PUT",
      path: "/",
      headers: {},
      body: Buffer.from([0, 1, 2, 255]),
    });
    expect(await res.text()).toBe("4");
    expect([...body]).toEqual([0, 1, 2, 255]);
  });

  it("de-chunks a chunked body, ignoring chunk extensions and dropping trailers", async () => {
    const p = await rawPool(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5;name=value\r\nhel",
      "lo\r\n6 ; a=b\r\n world\r\n0\r\nx-trailer: 1\r\nx-other: 2\r\n\r\n",
    );
    const res = await get(p);
    expect(res.headers["transfer-encoding"]).toBe("gzip, chunked");
    expect(await res.text()).toBe("hello world");
    expect(p.stats).toEqual({ sockets: 1, idle: 1, queued: 0 });
  });

  it("reads a body without length until the server closes, and does not reuse that socket", async () => {
    server = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\n\r\nfirst part, ");
      setTimeout(() => socket.end("second part"), 20);
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    expect(await (await get(pool)).text()).toBe("first part, second part");
    expect(await (await get(pool)).text()).toBe("first part, second part");
    expect(server.connections()).toBe(2);
  });

  it("skips a 103 Early Hints answer and returns the final 200", async () => {
    server = await httpServer((_req, res) => {
      res.writeEarlyHints({ link: "</style.css>; rel=preload" });
      setTimeout(
        () => res.writeHead(200, { "content-type": "text/plain" }).end("final"),
        10,
      );
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool);
    expect(res.status).toBe(200);
    expect(res.headers.link).toBeUndefined();
    expect(await res.text()).toBe("final");
  });

  it("skips 100 Continue written in the same packet as the final answer", async () => {
    const p = await rawPool(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
    );
    const res = await get(p);
    expect([res.status, await res.text()]).toEqual([200, "ok"]);
  });

  it("reads no body for 204, 304 and HEAD, and reuses the socket after each", async () => {
    server = await httpServer((req, res) => {
      if (req.url === "/204") res.writeHead(204).end();
      else if (req.url === "/304") res.writeHead(304, { etag: '"x"' }).end();
      else
        res
          .writeHead(200, {
            "content-type": "text/plain",
            "content-length": "11",
          })
          .end(req.method === "HEAD" ? undefined : "hello world");
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const noContent = await get(pool, "/204");
    expect([noContent.status, await noContent.text()]).toEqual([204, ""]);
    const notModified = await get(pool, "/304");
    expect([
      notModified.status,
      notModified.headers.etag,
      await notModified.text(),
    ]).toEqual([304, '"x"', ""]);
    const head = await pool.request({ method: "HEAD", path: "/", headers: {} });
    expect([
      head.status,
      head.headers["content-length"],
      await head.text(),
    ]).toEqual([200, "11", ""]);
    expect(await (await get(pool)).text()).toBe("hello world");
    expect(server.connections()).toBe(1);
  });

  it("decodes utf8 characters split across chunks and reads", async () => {
    const text = "añ€😀z";
    const bytes = Buffer.from(text, "utf8");
    // split inside "€" (3 bytes) and inside "😀" (4 bytes)
    const p = await rawPool(
      Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\ncontent-length: ${bytes.length}\r\n\r\n`,
        ),
        bytes.subarray(0, 4),
      ]),
      bytes.subarray(4, 7),
      bytes.subarray(7),
    );
    expect(await (await get(p)).text()).toBe(text);
  });

  it("joins repeated response headers with a comma", async () => {
    const p = await rawPool(
      "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nx-list: one\r\nset-cookie: b=2\r\nX-List:  two \r\ncontent-length: 0\r\n\r\n",
    );
    const res = await get(p);
    expect(res.headers["set-cookie"]).toBe("a=1, b=2");
    expect(res.headers["x-list"]).toBe("one, two");
  });

  it("accepts repeated equal Content-Length values", async () => {
    const p = await rawPool(
      "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 3\r\n\r\nabc",
    );
    expect(await (await get(p)).text()).toBe("abc");
  });

  it("does not reuse the socket after an HTTP/1.0 answer without keep-alive or one with connection: close", async () => {
    let n = 0;
    server = await rawServer((socket) => {
      n++;
      socket.write(
        n === 1
          ? "HTTP/1.0 200 OK\r\ncontent-length: 1\r\n\r\na"
          : "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 1\r\n\r\nb",
      );
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    expect(await (await get(pool)).text()).toBe("a");
    expect(await (await get(pool)).text()).toBe("b");
    expect(server.connections()).toBe(2);
  });

  it("reuses the socket after an HTTP/1.0 answer with connection: keep-alive", async () => {
    server = await rawServer((socket) =>
      socket.write(
        "HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\nok",
      ),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    for (let i = 0; i < 3; i++)
      expect(await (await get(pool)).text()).toBe("ok");
    expect(server.connections()).toBe(1);
  });
});

describe("malformed responses", () => {
  const cases: [string, string, RegExp][] = [
    [
      "a garbage status line",
      "HTTP/1.1 OK\r\n\r\n",
      /^malformed response status line from 127\.0\.0\.1:\d+$/,
    ],
    [
      "an HTTP/2 status line",
      "HTTP/2 200 OK\r\n\r\n",
      /^malformed response status line from /,
    ],
    [
      "a header line without a colon",
      "HTTP/1.1 200 OK\r\nbroken\r\n\r\n",
      /^malformed response header line "broken" from /,
    ],
    [
      "conflicting Content-Length values",
      "HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabc",
      /^invalid Content-Length "3, 4" in the response from /,
    ],
    [
      "a negative Content-Length",
      "HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n",
      /^invalid Content-Length "-1"/,
    ],
    [
      "a 101 Switching Protocols",
      "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n",
      /^a 101 Switching Protocols answer \(upgrades are not supported\) came from /,
    ],
  ];

  it.each(cases)(
    "rejects %s with TG_ERR_UPSTREAM",
    async (_name, bytes, message) => {
      const p = await rawPool(bytes);
      const err = await get(p).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({
        code: "TG_ERR_UPSTREAM",
        message: expect.stringMatching(message),
      });
    },
  );

  it("rejects text() when a chunk size is not hex, after the head was good", async () => {
    const p = await rawPool(
      "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    );
    const res = await get(p);
    await expect(res.text()).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: expect.stringMatching(
        /^malformed chunk size "zz" from 127\.0\.0\.1:/,
      ),
    });
  });

  it("rejects a response head larger than maxHeaderBytes, naming the limit", async () => {
    server = await rawServer((socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(5000)}\r\n\r\n`),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1, maxHeaderBytes: 1024 });
    await expect(get(pool)).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: expect.stringContaining("larger than the 1024-byte limit"),
    });
  });

  it("accepts a head just under maxHeaderBytes that arrives in small pieces", async () => {
    const head = `HTTP/1.1 200 OK\r\nx-big: ${"a".repeat(950)}\r\ncontent-length: 2\r\n\r\n`;
    const pieces = head.match(/[\s\S]{1,100}/g) ?? [];
    const p = await rawPoolWith({ maxHeaderBytes: 1024 }, ...pieces, "ok");
    const res = await get(p);
    expect([res.headers["x-big"]?.length, await res.text()]).toEqual([
      950,
      "ok",
    ]);
  });
});
