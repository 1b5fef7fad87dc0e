/**
 * The contract between the operator's output and the gateway's input: the rendered
 * ConfigMap and Secret, written to real directories the way the kubelet mounts them
 * (timestamped directory, `..data` symlink swapped atomically, one symlink per key), load in
 * the gateway with every `env.` reference resolved from the Secret's files, and a later
 * render reaches a watching gateway through the `..data` swap.
 *
 * It reaches into the gateway's config module by relative path because the gateway's public
 * index does not export its loader; it is a cross-package contract test, not a dependency.
 */
import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { resolveSecret } from "../../gateway/src/config/env.js";
import { loadConfig } from "../../gateway/src/config/load.js";
import type { GatewayConfig } from "../../gateway/src/config/schema.js";
import { watchConfig } from "../../gateway/src/config/watch.js";
import type { CustomObject } from "../src/crds/resources.js";
import {
  CONFIG_KEY,
  decodeSecret,
  desiredConfigMap,
  desiredSecret,
} from "../src/render/children.js";
import { render, type SecretLookup } from "../src/render/desired.js";
import { eventually } from "./helpers.js";

let generation = 0;

/** Writes `files` into `dir` as the kubelet's atomic writer does for a ConfigMap or Secret volume. */
async function kubeletWrite(
  dir: string,
  files: Record<string, string>,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const entries = await readdir(dir);
  const previous = entries.includes("..data")
    ? await readlink(join(dir, "..data"))
    : undefined;
  const stamp = `..2026_01_01_00_00_${String(++generation).padStart(2, "0")}.${process.pid}`;
  await mkdir(join(dir, stamp));
  for (const [k, v] of Object.entries(files))
    await writeFile(join(dir, stamp, k), v);
  await symlink(stamp, join(dir, "..data_tmp"));
  await rename(join(dir, "..data_tmp"), join(dir, "..data"));
  for (const k of Object.keys(files))
    if (!entries.includes(k)) await symlink(join("..data", k), join(dir, k));
  for (const e of entries) {
    if (e.startsWith("..") || e in files) continue;
    if ((await lstat(join(dir, e))).isSymbolicLink()) await rm(join(dir, e));
  }
  if (previous) await rm(join(dir, previous), { recursive: true, force: true });
}

const target = { namespace: "ns", configMap: "gw", secret: "gw" };

function mount(
  clients: CustomObject[],
  virtualKeys: CustomObject[],
  secrets: SecretLookup,
): { config: Record<string, string>; secret: Record<string, string> } {
  const r = render({ clients, virtualKeys, secrets });
  const cm = desiredConfigMap(r, target);
  return {
    config: { [CONFIG_KEY]: cm.data?.[CONFIG_KEY] ?? "" },
    secret: decodeSecret(desiredSecret(r, target)),
  };
}

const client = (name: string, secretName: string): CustomObject => ({
  metadata: {
    name,
    namespace: "ns",
    creationTimestamp: `2026-01-01T00:00:0${name.length}Z`,
  },
  spec: {
    connectionType: "http",
    connectionString: `https://${name}.example/mcp`,
    authType: "headers",
    headers: {
      Authorization: { secretKeyRef: { name: secretName, key: "token" } },
    },
    toolsToExecute: ["*"],
  },
});
const vk: CustomObject = {
  metadata: { name: "team-a", namespace: "ns" },
  spec: { keySecretRef: { name: "vk" } },
};

describe("operator output mounted into a gateway", () => {
  let root: string;
  let configDir: string;
  let secretsDir: string;
  const closers: (() => void)[] = [];

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "toolgate-mount-"));
    configDir = join(root, "config");
    secretsDir = join(root, "secrets");
  });

  afterEach(async () => {
    for (const c of closers.splice(0)) c();
    await rm(root, { recursive: true, force: true });
  });

  it("loads in the gateway with every env. reference resolved from the Secret's files", async () => {
    const m = mount(
      [client("search", "s")],
      [vk],
      (_ns, name) =>
        ({ s: { token: "Bearer one" }, vk: { key: "vk-secret" } })[name],
    );
    await kubeletWrite(secretsDir, m.secret);
    await kubeletWrite(configDir, m.config);
    const source = { env: {}, secretsDir };
    const cfg = loadConfig(join(configDir, CONFIG_KEY), source);
    expect(
      resolveSecret(
        cfg.mcp.client_configs[0]?.headers?.Authorization ?? "",
        source,
      ),
    ).toBe("Bearer one");
    expect(
      resolveSecret(cfg.governance.virtual_keys[0]?.value ?? "", source),
    ).toBe("vk-secret");
  });

  it("reaches a watching gateway through the ..data swap, secret values first", async () => {
    const first = mount([client("search", "s")], [], () => ({
      token: "Bearer one",
    }));
    await kubeletWrite(secretsDir, first.secret);
    await kubeletWrite(configDir, first.config);
    const source = { env: {}, secretsDir };
    const seen: GatewayConfig[] = [];
    const w = watchConfig(join(configDir, CONFIG_KEY), {
      logger: pino({ level: "silent" }),
      onChange: (c) => void seen.push(c),
      debounceMs: 20,
      secrets: source,
    });
    closers.push(() => w.close());

    // A second client with its own secret, and the first one's token rotated.
    const second = mount(
      [client("search", "s"), client("docs", "d")],
      [],
      (_ns, name) =>
        ({ s: { token: "Bearer two" }, d: { token: "Bearer docs" } })[name],
    );
    await kubeletWrite(secretsDir, second.secret);
    await kubeletWrite(configDir, second.config);
    const cfg = await eventually(() => {
      const c = seen.at(-1);
      expect(c?.mcp.client_configs.map((x) => x.name)).toEqual([
        "docs",
        "search",
      ]);
      return c as GatewayConfig;
    });
    expect(
      cfg.mcp.client_configs.map((c) =>
        resolveSecret(c.headers?.Authorization ?? "", source),
      ),
    ).toEqual(["Bearer docs", "Bearer two"]);
  });
});
