/** `/healthz` (alive), `/readyz` (standby, or leader with synced caches) and `/metrics`. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import type { Registry } from "prom-client";

export interface HealthTarget {
  readonly ready: boolean;
}

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  target: HealthTarget,
  registry: Registry,
  host: string,
  port: number,
): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
    } else if (path === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz") {
      const ok = target.ready;
      res
        .writeHead(ok ? 200 : 503, { "content-type": "text/plain" })
        .end(ok ? "ok\n" : "caches not synced\n");
    } else if (path === "/metrics") {
      registry.metrics().then(
        (text) =>
          res
            .writeHead(200, { "content-type": registry.contentType })
            .end(text),
        (error: unknown) =>
          res
            .writeHead(500, { "content-type": "text/plain" })
            .end(`${String(error)}\n`),
      );
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
