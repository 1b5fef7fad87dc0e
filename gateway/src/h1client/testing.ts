/** Servers for the h1client tests: real `node:http` ones, and raw `node:net` ones that write exact bytes. */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo, Server, Socket } from "node:net";
import { createServer as createNetServer } from "node:net";

export interface TestServer {
  readonly origin: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Connections open now. */
  readonly open: () => number;
  readonly close: () => Promise<void>;
}

function track(server: Server | HttpServer): { connections: () => number; open: () => number; sockets: Set<Socket> } {
  let count = 0;
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    count++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  return { connections: () => count, open: () => sockets.size, sockets };
}

async function listen(server: Server | HttpServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

function closer(server: Server | HttpServer, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

export async function httpServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const server = createHttpServer(handler);
  const t = track(server);
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, port, connections: t.connections, open: t.open, close: closer(server, t.sockets) };
}

/** A server that hands each accepted socket (and the bytes of each request head) to `onRequest`. */
export async function rawServer(onRequest: (socket: Socket, head: string) => void): Promise<TestServer> {
  const server = createNetServer((socket) => {
    let buffered = "";
    socket.on("error", () => undefined);
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("latin1");
      let end = buffered.indexOf("\r\n\r\n");
      while (end !== -1) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const length = /content-length: (\d+)/i.exec(head);
        buffered = buffered.slice(length ? Number(length[1]) : 0);
        onRequest(socket, head);
        end = buffered.indexOf("\r\n\r\n");
      }
    });
  });
  const t = track(server);
  const port = await listen(server);
  return { origin: `http://127.0.0.1:${port}`, port, connections: t.connections, open: t.open, close: closer(server, t.sockets) };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `check` holds, polling every 5 ms; rejects after `ms`. */
export async function until(check: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await sleep(5);
  }
}
