import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { H1Pool } from "../src/h1client/index.js";

describe("https origins", () => {
  let dir = "";
  let ca: Buffer;
  let server: ReturnType<typeof createServer>;
  let port = 0;
  let connections = 0;
  const servernames: (string | false)[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "h1client-tls-"));
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
      ],
      { stdio: "ignore" },
    );
    ca = readFileSync(cert);
    server = createServer({ key: readFileSync(key), cert: ca }, (req, res) =>
      res.end(`secure ${req.url} ${req.headers.host}`),
    );
    server.on("secureConnection", (socket) => {
      connections++;
      servernames.push(
        (socket as unknown as { servername: string | false }).servername,
      );
    });
    await new Promise<void>((resolve) =>
      server.listen(0, "127.0.0.1", resolve),
    );
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("talks to a server with a self-signed certificate given as ca, over one kept-alive connection", async () => {
    const before = connections;
    const pool = new H1Pool(`https://localhost:${port}`, {
      maxSockets: 1,
      tls: { ca },
    });
    try {
      for (let i = 0; i < 3; i++)
        expect(
          await (
            await pool.request({ method: "GET", path: `/x${i}`, headers: {} })
          ).text(),
        ).toBe(`secure /x${i} localhost:${port}`);
      expect(connections - before).toBe(1);
      expect(servernames.at(-1)).toBe("localhost");
    } finally {
      await pool.close();
    }
  });

  it("rejects with TG_ERR_UPSTREAM when the certificate is not trusted", async () => {
    const pool = new H1Pool(`https://localhost:${port}`, { maxSockets: 1 });
    try {
      await expect(
        pool.request({ method: "GET", path: "/", headers: {} }),
      ).rejects.toMatchObject({
        code: "TG_ERR_UPSTREAM",
        message: expect.stringMatching(
          /^could not connect to localhost:\d+: self-signed certificate/,
        ),
      });
    } finally {
      pool.destroy();
    }
  });
});
