/**
 * Processes the process-level benches start: the gateway from its build (ready once it
 * answers `everything_echo`), the reference MCP server, and ephemeral loopback ports. Shared
 * so every bench starts them the same way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The built gateway entry (benches run `tsc -b` first). */
export const GATEWAY_MAIN = join(
  here,
  "..",
  "..",
  "gateway",
  "dist",
  "main.js",
);

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** The installed server-everything entry, run with this Node (no npx, no network). */
export function everythingBin(): string {
  const require = createRequire(
    join(here, "..", "..", "gateway", "package.json"),
  );
  const pkgPath =
    require.resolve("@modelcontextprotocol/server-everything/package.json");
  const pkg = require(pkgPath) as { bin: Record<string, string> };
  return join(dirname(pkgPath), Object.values(pkg.bin)[0] ?? "dist/index.js");
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() =>
        typeof addr === "object" && addr
          ? resolve(addr.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/** A Node child that is ready once its output matches `ready`. */
export function startChild(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (ready.test(seen)) resolve(child);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) =>
      reject(new Error(`child exited with ${code}: ${seen.slice(-2000)}`)),
    );
  });
}

/** server-everything over streamable HTTP on a free port; its /mcp URL. */
export async function startEverythingHttp(): Promise<{
  child: ChildProcess;
  url: string;
}> {
  const port = await freePort();
  const child = await startChild(
    [everythingBin(), "streamableHttp"],
    { PORT: String(port) },
    /listening on port/i,
  );
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}

let echoId = 0;
/** A `tools/call` of `everything_echo`, as a client sends it to the gateway's /mcp. */
export function gatewayEchoBody(): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: ++echoId,
    method: "tools/call",
    params: { name: "everything_echo", arguments: { message: "bench" } },
  });
}

/** Polls until the gateway is up, its upstream connected and the tool offered (or 30 s pass). */
export async function untilEchoes(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: MCP_HEADERS,
        body: gatewayEchoBody(),
      });
      if ((await res.text()).includes("Echo: bench")) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the gateway at ${url} never answered everything_echo`);
}

export interface GatewayOptions {
  /** The streamable HTTP upstream, offered as the client "everything". */
  readonly upstreamUrl: string;
  readonly env?: Record<string, string>;
  /** The Redis store; the memory store when absent. */
  readonly redisUrl?: string;
  /** Health checks once an hour, so none runs during the rounds. */
  readonly quietHealth?: boolean;
}

/** The built gateway in a child process, in front of one upstream; ready once it echoes. */
export async function startGateway(
  opts: GatewayOptions,
): Promise<{ child: ChildProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
  const configPath = join(dir, "config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      server: { log_level: "warn" },
      ...(opts.redisUrl ? { state: { redis_url: opts.redisUrl } } : {}),
      mcp: {
        client_configs: [
          {
            name: "everything",
            connection_type: "http",
            connection_string: opts.upstreamUrl,
            tools_to_execute: ["*"],
          },
        ],
        ...(opts.quietHealth
          ? { health_monitor_config: { check_interval: "1h" } }
          : {}),
      },
    }),
  );
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [GATEWAY_MAIN, "--config", configPath, "--port", String(port)],
    { env: { ...process.env, ...opts.env }, stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  try {
    await untilEchoes(url);
  } catch (error) {
    child.kill("SIGTERM");
    throw error;
  }
  return { child, url };
}
