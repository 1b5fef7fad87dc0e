/**
 * Processes the process-level benches start: the gateway from its build, the reference MCP
 * server, and ephemeral loopback ports. Shared so every bench starts them the same way.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
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
