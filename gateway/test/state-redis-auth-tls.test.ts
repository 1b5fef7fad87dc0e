/**
 * `rediss://` and passwords against our own redis-server (TLS port with a throwaway
 * self-signed certificate, `requirepass`). Trusting a private CA is Node's standard
 * NODE_EXTRA_CA_CERTS, so the TLS happy path runs in a child process that sets it.
 */
import type { ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createStateStore } from "../src/state/create.js";
import type { StateStore } from "../src/state/types.js";
import { spawnRedisServer } from "./fixtures/redis-server.js";

const PASSWORD = "s3cret p@ss/word";
const logger = pino({ level: "silent" });
const repoRoot = resolve(import.meta.dirname, "../..");

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => res(typeof addr === "object" && addr ? addr.port : 0));
    });
  });
}

let dir = "";
let server: ChildProcess | undefined;
let plainPort = 0;
let tlsPort = 0;
const stores: StateStore[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolgate-redis-tls-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  [plainPort, tlsPort] = [await freePort(), await freePort()];
  server = await spawnRedisServer([
    "--port",
    String(plainPort),
    "--bind",
    "127.0.0.1",
    "--tls-port",
    String(tlsPort),
    "--tls-cert-file",
    join(dir, "cert.pem"),
    "--tls-key-file",
    join(dir, "key.pem"),
    "--tls-auth-clients",
    "no",
    "--requirepass",
    PASSWORD,
    "--save",
    "",
    "--appendonly",
    "no",
  ]);
});

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server?.once("exit", r));
    server.kill("SIGKILL");
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

function open(redisUrl: string): StateStore {
  const s = createStateStore({ redisUrl, logger, namespace: "authtest" });
  stores.push(s);
  return s;
}

describe("Redis credentials and TLS", () => {
  it("connects with the password from the URL, also through an env. reference", async () => {
    const url = `redis://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${plainPort}`;
    const store = createStateStore({
      redisUrl: "env.TEST_REDIS_URL",
      logger,
      namespace: "authtest",
      secrets: { env: { TEST_REDIS_URL: url } },
    });
    stores.push(store);
    await store.set("kv:a", { ok: true });
    expect((await store.get("kv:a"))?.value).toEqual({ ok: true });
  });

  it("fails with a clear, bounded error on a wrong password", async () => {
    const store = open(`redis://:wrong@127.0.0.1:${plainPort}`);
    const t0 = performance.now();
    const err: unknown = await store.ping().catch((e: unknown) => e);
    expect(performance.now() - t0).toBeLessThan(1200);
    expect(err).toMatchObject({ code: "TG_ERR_STATE_UNAVAILABLE" });
    expect(String((err as Error).message)).toContain(
      `redis://127.0.0.1:${plainPort}`,
    );
    expect(String((err as Error).message)).toMatch(
      /WRONGPASS|NOAUTH|invalid password/i,
    );
    expect(String((err as Error).message)).not.toContain(":wrong@");
  });

  it("verifies the server certificate over rediss://", async () => {
    const store = open(
      `rediss://:${encodeURIComponent(PASSWORD)}@127.0.0.1:${tlsPort}`,
    );
    await expect(store.ping()).rejects.toMatchObject({
      code: "TG_ERR_STATE_UNAVAILABLE",
    });
    await expect(store.ping()).rejects.toThrow(/certificate/);
  });

  it("survives TLS failures and closes without an uncaught socket error", async () => {
    // Regression: ioredis handles a socket's first error only; the SSL alert that can follow a
    // certificate failure used to surface as an uncaught exception (a crash outside tests).
    let uncaught = 0;
    const count = (): void => void uncaught++;
    process.on("uncaughtException", count);
    try {
      for (let i = 0; i < 8; i++) {
        const store = createStateStore({
          redisUrl: `rediss://127.0.0.1:${tlsPort}`,
          logger,
          namespace: "authtest",
        });
        await store.ping().catch(() => undefined);
        await store.close();
      }
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      process.off("uncaughtException", count);
    }
    expect(uncaught).toBe(0);
  });

  it("works over rediss:// with a password when the CA is trusted", () => {
    const script = join(dir, "tls-client.mts");
    writeFileSync(
      script,
      // Absolute paths: the script lives in a temp dir, outside the workspace's node_modules.
      `import pino from ${JSON.stringify(createRequire(import.meta.url).resolve("pino"))};
import { createStateStore } from ${JSON.stringify(join(repoRoot, "gateway/src/state/create.ts"))};
const store = createStateStore({ redisUrl: process.env.URL, logger: pino({ level: "silent" }), namespace: "tlstest" });
await store.set("kv:t", { tls: true });
const got = await store.get("kv:t");
await store.delete("kv:t");
await store.close();
console.log(JSON.stringify(got?.value));
`,
    );
    const out = execFileSync(process.execPath, ["--import", "tsx", script], {
      cwd: join(repoRoot, "gateway"),
      env: {
        ...process.env,
        NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"),
        URL: `rediss://:${encodeURIComponent(PASSWORD)}@localhost:${tlsPort}`,
      },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(out.trim()).toBe('{"tls":true}');
  });
});
