import { afterEach, describe, expect, it } from "vitest";

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

function get(p: H1Pool, path = "/") {
  return p.request({ method: "GET", path, headers: {} });
}

describe("keep-alive and the pool", () => {
  it("carries 20 sequential requests on one connection", async () => {
    server = await httpServer((req, res) => res.end(`answer ${req.url}`));
    pool = new H1Pool(server.origin, { maxSockets: 4 });
    for (let i = 0; i < 20; i++) {
      const res = await pool.request({
        method: "POST",
        path: `/${i}`,
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(await res.text()).toBe(`answer /${i}`);
    }
    expect(server.connections()).toBe(1);
    expect(pool.stats).toEqual({ sockets: 1, idle: 1, queued: 0 });
  });

  it("opens a new connection after an answer with connection: close", async () => {
    server = await httpServer((_req, res) =>
      res.writeHead(200, { connection: "close" }).end("bye"),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    expect(await (await get(pool)).text()).toBe("bye");
    expect(await (await get(pool)).text()).toBe("bye");
    expect(server.connections()).toBe(2);
  });

  it("drops an idle socket the server closed and sends the next request on a new one", async () => {
    server = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
      setTimeout(() => socket.end(), 20); // the server's own idle timeout
    });
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    expect(await (await get(pool)).text()).toBe("ok");
    expect(pool.stats).toEqual({ sockets: 1, idle: 1, queued: 0 });
    await until(() => pool!.stats.sockets === 0);
    expect(await (await get(pool)).text()).toBe("ok");
    expect(server.connections()).toBe(2);
  });

  it("never opens more than maxSockets and serves queued requests in order", async () => {
    let concurrent = 0;
    let peak = 0;
    server = await httpServer((req, res) => {
      concurrent++;
      peak = Math.max(peak, concurrent);
      setTimeout(() => {
        concurrent--;
        res.end(req.url);
      }, 20);
    });
    pool = new H1Pool(server.origin, { maxSockets: 2 });
    const answers = Array.from({ length: 6 }, (_, i) =>
      get(pool!, `/${i}`).then((r) => r.text()),
    );
    expect(pool.stats).toEqual({ sockets: 2, idle: 0, queued: 4 });
    expect(await Promise.all(answers)).toEqual([
      "/0",
      "/1",
      "/2",
      "/3",
      "/4",
      "/5",
    ]);
    expect(server.connections()).toBe(2);
    expect(peak).toBe(2);
    expect(pool.stats).toEqual({ sockets: 2, idle: 2, queued: 0 });
  });

  it("closes an idle socket after idleTimeoutMs", async () => {
    server = await httpServer((_req, res) => res.end("ok"));
    pool = new H1Pool(server.origin, { maxSockets: 1, idleTimeoutMs: 50 });
    await (await get(pool)).text();
    expect(pool.stats.idle).toBe(1);
    await until(() => pool!.stats.sockets === 0);
    await until(() => server!.open() === 0);
  });

  it("takes the server's Keep-Alive timeout hint minus one second when it is smaller", async () => {
    server = await rawServer((socket) =>
      socket.write(
        "HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\nok",
      ),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1, idleTimeoutMs: 60_000 });
    expect(await (await get(pool)).text()).toBe("ok");
    // 1 s - 1 s = 0: the socket is not kept at all
    await until(() => pool!.stats.sockets === 0, 500);
    expect(await (await get(pool)).text()).toBe("ok");
    expect(server.connections()).toBe(2);
  });

  it("reuses the socket once a dumped body completes", async () => {
    server = await httpServer((_req, res) => res.end("x".repeat(100_000)));
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    (await get(pool)).dump();
    expect((await (await get(pool)).text()).length).toBe(100_000);
    expect(server.connections()).toBe(1);
  });

  it("throws when a second consumer is asked for the same body", async () => {
    server = await httpServer((_req, res) => res.end("once"));
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const res = await get(pool);
    expect(await res.text()).toBe("once");
    expect(() => res.dump()).toThrow(/already taken/);
    expect(() => res.buffer()).toThrow(/already taken/);
  });

  it("close() waits for requests in flight, then rejects new ones with TG_ERR_SHUTTING_DOWN", async () => {
    server = await httpServer((_req, res) =>
      setTimeout(() => res.end("late"), 50),
    );
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const inFlight = get(pool);
    const queued = get(pool);
    let closed = false;
    const closing = pool.close().then(() => (closed = true));
    await expect(get(pool)).rejects.toMatchObject({
      code: "TG_ERR_SHUTTING_DOWN",
    });
    expect(closed).toBe(false);
    expect(await (await inFlight).text()).toBe("late");
    expect(await (await queued).text()).toBe("late");
    await closing;
    expect(closed).toBe(true);
    expect(pool.stats).toEqual({ sockets: 0, idle: 0, queued: 0 });
    await until(() => server!.open() === 0);
  });

  it("destroy() rejects requests in flight and queued", async () => {
    server = await httpServer(() => undefined);
    pool = new H1Pool(server.origin, { maxSockets: 1 });
    const inFlight = get(pool);
    const queued = get(pool);
    await until(() => server!.connections() === 1);
    pool.destroy();
    await expect(inFlight).rejects.toMatchObject({
      code: "TG_ERR_SHUTTING_DOWN",
    });
    await expect(queued).rejects.toMatchObject({
      code: "TG_ERR_SHUTTING_DOWN",
    });
  });

  it("refuses an origin that is not http: or https:", () => {
    expect(() => new H1Pool("ftp://example.com", { maxSockets: 1 })).toThrow(
      /not http: or https:/,
    );
  });

  it("rejects with the errno message when nothing listens", async () => {
    server = await httpServer(() => undefined);
    const origin = server.origin;
    await server.close();
    server = undefined;
    pool = new H1Pool(origin, { maxSockets: 1 });
    await expect(get(pool)).rejects.toMatchObject({
      code: "TG_ERR_UPSTREAM",
      message: expect.stringMatching(
        /^could not connect to 127\.0\.0\.1:\d+: connect ECONNREFUSED/,
      ),
    });
    await sleep(1);
  });
});
