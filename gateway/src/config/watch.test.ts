import {
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { pino } from "pino";
import { afterEach, describe, expect, test } from "vitest";

import type { GatewayConfig } from "./schema.js";
import { type ConfigWatcher, watchConfig } from "./watch.js";

const yamlWithPort = (port: number) => `server:\n  port: ${port}\n`;

interface Harness {
  readonly configs: GatewayConfig[];
  readonly logs: Array<{
    msg: string;
    problems?: Array<{ path: string; message: string }>;
  }>;
  next(): Promise<GatewayConfig>;
  nextLog(match: RegExp): Promise<void>;
}

const watchers: ConfigWatcher[] = [];
afterEach(() => {
  for (const w of watchers.splice(0)) w.close();
});

/** Starts a watcher and turns its callbacks and log lines into awaitable events (no sleeps). */
function start(path: string, initialText?: string): Harness {
  const configs: GatewayConfig[] = [];
  const logs: Harness["logs"] = [];
  const waiters: Array<() => void> = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) => (
        logs.push(JSON.parse(line) as Harness["logs"][number]),
        notify()
      ),
    },
  );
  const onChange = (c: GatewayConfig) => {
    configs.push(c);
    notify();
  };
  watchers.push(
    watchConfig(
      path,
      { logger, onChange, debounceMs: 20, secrets: { env: {} } },
      initialText,
    ),
  );
  const until = async (ok: () => boolean) => {
    while (!ok()) await new Promise<void>((r) => waiters.push(r));
  };
  let seen = 0;
  return {
    configs,
    logs,
    async next() {
      await until(() => configs.length > seen);
      return configs[seen++]!;
    },
    async nextLog(match) {
      await until(() => logs.some((l) => match.test(l.msg)));
    },
  };
}

describe("config file watching", () => {
  test("applies a valid change and keeps the running config on an invalid one, logging every problem", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "toolgate.yaml");
    writeFileSync(file, yamlWithPort(1000));
    const h = start(file, yamlWithPort(1000));

    writeFileSync(file, yamlWithPort(1001));
    expect((await h.next()).server.port).toBe(1001);

    writeFileSync(file, "server:\n  port: nope\n  hots: x\n");
    await h.nextLog(/config reload rejected/);
    const rejected = h.logs.find((l) => /config reload rejected/.test(l.msg));
    expect(rejected?.problems?.map((p) => p.path)).toEqual([
      "server.port",
      "server.hots",
    ]);
    expect(h.configs).toHaveLength(1);

    writeFileSync(file, yamlWithPort(1002));
    expect((await h.next()).server.port).toBe(1002);
  });

  test("rejects a reload that references an unset variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "c.yaml");
    writeFileSync(file, yamlWithPort(1));
    const h = start(file);
    writeFileSync(
      file,
      "providers:\n  p:\n    base_url: http://x\n    api_key: env.TOOLGATE_TEST_UNSET_VAR\n",
    );
    await h.nextLog(/config reload rejected/);
    expect(h.logs.at(-1)?.msg).toContain("TOOLGATE_TEST_UNSET_VAR");
    expect(h.configs).toHaveLength(0);
  });

  test("sees an atomic save (write a temp file, rename it over the config)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "c.json");
    writeFileSync(file, JSON.stringify({ server: { port: 1 } }));
    const h = start(file);
    writeFileSync(
      join(dir, ".c.json.tmp"),
      JSON.stringify({ server: { port: 2 } }),
    );
    renameSync(join(dir, ".c.json.tmp"), file);
    expect((await h.next()).server.port).toBe(2);
  });

  test("sees a Kubernetes ConfigMap update (the ..data symlink swap)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const v1 = join(dir, "..2026_01_01_v1");
    mkdirSync(v1);
    writeFileSync(join(v1, "config.yaml"), yamlWithPort(1));
    symlinkSync("..2026_01_01_v1", join(dir, "..data"));
    symlinkSync("..data/config.yaml", join(dir, "config.yaml"));
    const h = start(join(dir, "config.yaml"));

    // What the kubelet does: a new timestamped directory, a temp symlink to it, renamed over ..data.
    const v2 = join(dir, "..2026_01_01_v2");
    mkdirSync(v2);
    writeFileSync(join(v2, "config.yaml"), yamlWithPort(2));
    symlinkSync("..2026_01_01_v2", join(dir, "..data_tmp"));
    renameSync(join(dir, "..data_tmp"), join(dir, "..data"));
    rmSync(v1, { recursive: true });
    expect((await h.next()).server.port).toBe(2);
  });

  test("ignores an event that leaves the text unchanged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-watch-"));
    const file = join(dir, "c.yaml");
    writeFileSync(file, yamlWithPort(1));
    const h = start(file);
    writeFileSync(file, yamlWithPort(1));
    await h.nextLog(/without a change of content/);
    expect(h.configs).toHaveLength(0);
    writeFileSync(file, yamlWithPort(3));
    expect((await h.next()).server.port).toBe(3);
  });
});
