/**
 * The `toolgate` process as a user runs it: the built bin, real child processes, real ports.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { afterEach, beforeAll, describe, expect, test } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const main = join(root, "gateway", "dist", "main.js");

/** Newest modification time of the TypeScript sources the bin is built from. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, {
    withFileTypes: true,
    recursive: true,
  })) {
    if (entry.isFile() && entry.name.endsWith(".ts"))
      newest = Math.max(
        newest,
        statSync(join(entry.parentPath, entry.name)).mtimeMs,
      );
  }
  return newest;
}

beforeAll(() => {
  // `npm test` has just run `tsc -b`; build here only when the sources are newer (a lone `vitest run`).
  const stale =
    !existsSync(main) ||
    statSync(main).mtimeMs <
      Math.max(
        newestSource(join(root, "gateway", "src")),
        newestSource(join(root, "starlark", "src")),
      );
  if (stale) {
    // Another workspace may fail to typecheck mid-change; the gateway's emitted output is what this suite needs.
    spawnSync(
      process.execPath,
      [
        join(root, "node_modules", "typescript", "bin", "tsc"),
        "-b",
        join(root, "gateway"),
      ],
      { cwd: root, stdio: "ignore" },
    );
  }
  expect(existsSync(main), "gateway/dist/main.js was not built").toBe(true);
}, 180_000);

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly exit: Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const c of running.splice(0))
    if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const env = { ...process.env, ...extra };
  for (const k of [
    "TOOLGATE_CONFIG",
    "TOOLGATE_HOST",
    "TOOLGATE_PORT",
    "TOOLGATE_REDIS_URL",
  ])
    if (!(k in extra)) delete env[k];
  return env;
};

function run(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [main, ...args], {
    cwd: root,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  return child;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Starts the gateway and resolves with its URL once it logs that it listens. */
async function start(
  args: string[],
  env: Record<string, string> = {},
): Promise<Running> {
  const child = run(args, env);
  const exit = exitOf(child);
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      const entry = JSON.parse(line) as { msg?: string; url?: string };
      if (entry.msg === "toolgate listening" && entry.url) resolve(entry.url);
    });
    void exit.then((code) =>
      reject(new Error(`exited with ${code}: ${stderr}`)),
    );
  });
  return { child, url, stderr: () => stderr, exit };
}

async function completed(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = run(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await exitOf(child);
  return { code, stdout, stderr };
}

/** Child processes of `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the parenthesised command: state, ppid, ...
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8");
    return state.slice(state.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function health(url: string): Promise<{
  status: number;
  body: { status: string; clients: Record<string, string>; version: string };
}> {
  const res = await fetch(`${url}/health`);
  return {
    status: res.status,
    body: (await res.json()) as {
      status: string;
      clients: Record<string, string>;
      version: string;
    },
  };
}

async function untilHealthy(url: string, client: string): Promise<void> {
  for (;;) {
    const { body } = await health(url);
    if (body.clients[client] === "connected") return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function tempFile(name: string, text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), "toolgate-cli-")), name);
  writeFileSync(p, text);
  return p;
}

describe("toolgate with the embedded default", () => {
  test("serves /health listing the everything client, and on SIGTERM exits 0 and leaves no stdio child", async () => {
    const gw = await start(["--port", "0"]);
    const first = await health(gw.url);
    expect(first.status).toBe(200);
    expect(first.body.version).toBe("0.1.0");
    expect(Object.keys(first.body.clients)).toEqual(["everything"]);

    await untilHealthy(gw.url, "everything");
    const children = childrenOf(gw.child.pid!);
    expect(children.length).toBeGreaterThan(0);
    expect((await fetch(`${gw.url}/ready`)).status).toBe(200);

    gw.child.kill("SIGTERM");
    expect(await gw.exit).toBe(0);
    for (const pid of children) {
      while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
    }
    expect(gw.stderr()).toBe("");
  });

  test("--help prints the usage and exits 0", async () => {
    const { code, stdout } = await completed(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /^Usage: toolgate \[--config FILE\] \[--host HOST\] \[--port PORT\]/,
    );
  });

  test("an unknown flag exits 2 with the usage and no stack trace", async () => {
    const { code, stderr } = await completed(["--prot", "1"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^toolgate: Unknown option '--prot'/);
    expect(stderr).toContain("Usage: toolgate");
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe("toolgate with a config file", () => {
  test("a bad config exits non-zero with every problem on stderr and no stack trace", async () => {
    const file = tempFile(
      "bad.yaml",
      [
        "server:",
        "  port: high",
        "mcp:",
        "  client_configs:",
        "    - name: my-api",
        "      connection_type: stdio",
        "      stdio_config: { command: node }",
        "      tools_to_exec: ['*']",
        "",
      ].join("\n"),
    );
    const { code, stderr, stdout } = await completed(["--config", file]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      [
        `toolgate: ${file}: the configuration is invalid (3 problems)`,
        '  - server.port "high": must be a number, not a string',
        '  - mcp.client_configs[0].name "my-api": must use ASCII letters, digits and underscores only, and must not start with a digit (no hyphens or spaces)',
        '  - mcp.client_configs[0].tools_to_exec: unknown key; did you mean "tools_to_execute"?',
        "",
      ].join("\n"),
    );
  });

  test("missing environment variables are all listed at once", async () => {
    const file = tempFile(
      "env.json",
      JSON.stringify({
        providers: {
          openai: {
            base_url: "https://api.openai.com/v1",
            api_key: "env.TG_CLI_TEST_KEY",
          },
        },
        server: { auth: { username: "a", password: "env.TG_CLI_TEST_PW" } },
      }),
    );
    const { code, stderr } = await completed(["-c", file]);
    expect(code).toBe(1);
    expect(stderr.split("\n")[0]).toBe(
      `toolgate: ${file}: environment variables TG_CLI_TEST_PW, TG_CLI_TEST_KEY referenced by the configuration are not set`,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  test("a missing file is named", async () => {
    const { code, stderr } = await completed([], {
      TOOLGATE_CONFIG: "/nonexistent/toolgate.yaml",
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      "toolgate: cannot read the config file /nonexistent/toolgate.yaml: the file does not exist\n",
    );
  });

  test("--port overrides TOOLGATE_PORT, which overrides the file; a config change is applied without a restart", async () => {
    const file = tempFile(
      "toolgate.yaml",
      "server:\n  port: 1\nmcp:\n  client_configs: []\n",
    );
    const gw = await start(["--config", file, "--port", "0"], {
      TOOLGATE_PORT: "1",
    });
    expect(new URL(gw.url).port).not.toBe("1");
    expect((await health(gw.url)).body.clients).toEqual({});

    const server = JSON.stringify(
      join(
        root,
        "node_modules",
        "@modelcontextprotocol",
        "server-memory",
        "dist",
        "index.js",
      ),
    );
    writeFileSync(
      file,
      `server:\n  port: 1\nmcp:\n  client_configs:\n    - name: memory\n      connection_type: stdio\n      stdio_config: { command: ${JSON.stringify(process.execPath)}, args: [${server}] }\n      tools_to_execute: ["*"]\n`,
    );
    await untilHealthy(gw.url, "memory");
    gw.child.kill("SIGINT");
    expect(await gw.exit).toBe(0);
  });
});
