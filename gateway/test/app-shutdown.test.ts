import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { describe, expect, test } from "vitest";

import { buildApp } from "../src/app.js";
import { parseConfig } from "../src/config/load.js";
import { gracefulClose } from "../src/http/graceful-close.js";

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

async function listening() {
  const entered = deferred();
  const release = deferred();
  const streamOpen = deferred();
  const app = await buildApp(parseConfig({}), {
    logger: pino({ level: "silent" }),
    plugins: [
      {
        plugin: (instance: FastifyInstance) => {
          instance.get("/slow", async () => {
            entered.resolve();
            await release.promise;
            return { done: true };
          });
          instance.get("/stream", (_request, reply) => {
            // A stream that never ends by itself, like GET /mcp SSE.
            reply.raw.writeHead(200, { "content-type": "text/event-stream" });
            reply.raw.write(": open\n\n");
            streamOpen.resolve();
            return reply;
          });
          return Promise.resolve();
        },
      },
    ],
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url, entered, release, streamOpen };
}

describe("graceful close", () => {
  test("refuses new connections but lets a request in flight finish", async () => {
    const { app, url, entered, release } = await listening();
    const inFlight = fetch(`${url}/slow`);
    await entered.promise;

    const closing = gracefulClose(app, 60_000);
    await expect(fetch(`${url}/health`)).rejects.toThrow();

    release.resolve();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ done: true });
    expect(await closing).toEqual({ cut: false });
  });

  test("cuts a stream that is still open when the grace period ends", async () => {
    const { app, url, streamOpen } = await listening();
    const res = await fetch(`${url}/stream`);
    await streamOpen.promise;
    const reader = res.body!.getReader();
    await reader.read();

    expect(await gracefulClose(app, 50)).toEqual({ cut: true });
    // The client sees its stream end abruptly: the connection was closed under it.
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return "ended";
      })(),
    ).rejects.toThrow("terminated");
  });
});
