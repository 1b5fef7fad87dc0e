import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { ApiServerDouble } from "./api-server-double.js";
import {
  CLIENTS,
  eventually,
  LEASES,
  mcpClient,
  NS,
  renderedConfig,
  TARGET,
} from "./helpers.js";
import { writeKubeconfig } from "./kubectl.js";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
// Compiling the sources with tsx on start can take a while on a busy machine.
const START_MS = 90_000;

/** Runs the operator bin from source, in the same Node as the tests. */
function runOperator(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    ["--conditions=development", "--import", "tsx", MAIN, ...args],
    {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines: string[] = [];
  let buffered = "";
  const take = (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    const parts = buffered.split("\n");
    buffered = parts.pop() ?? "";
    lines.push(...parts);
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => resolve(code)),
  );
  return { child, lines, exited };
}

describe("the operator bin", () => {
  let api: ApiServerDouble;
  let dir: string;
  let running: ChildProcess | undefined;

  beforeEach(async () => {
    api = new ApiServerDouble();
    await api.start();
    dir = await mkdtemp(join(tmpdir(), "toolgate-operator-bin-"));
    await writeKubeconfig(join(dir, "kubeconfig"), api.url, "bin", NS);
  });

  afterEach(async () => {
    running?.kill("SIGKILL");
    await api.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("renders the config, serves health and metrics, and releases its Lease on SIGTERM", async () => {
    await writeFile(
      join(dir, "base.yaml"),
      "server:\n  port: 9090\nstate:\n  redis_url: env.REDIS_URL\n",
    );
    api.apply(
      CLIENTS,
      mcpClient("alpha", {
        connectionType: "http",
        connectionString: "https://a.example/mcp",
      }),
    );
    const args = [
      "--namespace",
      NS,
      "--gateway-config-map",
      TARGET.configMap,
      "--gateway-secret",
      TARGET.secret,
      "--base-config",
      join(dir, "base.yaml"),
      "--health-host",
      "127.0.0.1",
      "--health-port",
      "0",
      "--identity",
      "bin-0",
      "--log-level",
      "info",
    ];
    const op = runOperator(args, { KUBECONFIG: join(dir, "kubeconfig") });
    running = op.child;
    const started = await eventually(() => {
      const line = op.lines.find((l) => l.includes('"operator started"'));
      if (!line) throw new Error(`not started yet:\n${op.lines.join("\n")}`);
      return JSON.parse(line) as { healthPort: number };
    }, START_MS);
    const base = `http://127.0.0.1:${started.healthPort}`;
    await eventually(() => {
      if (!api.get(`/api/v1/namespaces/${NS}/configmaps/${TARGET.configMap}`))
        throw new Error(
          `no config yet; operator said:\n${op.lines.join("\n")}`,
        );
      expect(renderedConfig(api).mcp.client_configs.map((c) => c.name)).toEqual(
        ["alpha"],
      );
    }, 30_000);
    expect(renderedConfig(api).server.port).toBe(9090);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await eventually(async () =>
      expect((await fetch(`${base}/readyz`)).status).toBe(200),
    );
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain("toolgate_operator_leader 1");
    expect(metrics).toMatch(
      /toolgate_operator_api_writes_total\{resource="configmaps",verb="create"\} 1/,
    );
    expect(
      api.get(`${LEASES}/toolgate-operator-${TARGET.configMap}`)?.spec,
    ).toMatchObject({
      holderIdentity: "bin-0",
    });

    op.child.kill("SIGTERM");
    expect(await op.exited).toBe(0);
    expect(
      (
        api.get(`${LEASES}/toolgate-operator-${TARGET.configMap}`)?.spec as {
          holderIdentity?: string;
        }
      ).holderIdentity,
    ).toBeUndefined();
  }, 180_000);

  it(
    "exits with a message naming the flag when a flag is invalid",
    async () => {
      const op = runOperator(["--redis-url", "http://nope"], {
        KUBECONFIG: join(dir, "kubeconfig"),
      });
      running = op.child;
      expect(await op.exited).toBe(1);
      expect(op.lines.join("\n")).toContain(
        "--redis-url must start with redis:// or rediss://",
      );
    },
    START_MS,
  );
});
