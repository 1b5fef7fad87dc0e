import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { beforeAll, describe, expect, it } from "vitest";

const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(pkg, "dist", "cli.js");
const tsc = path.resolve(pkg, "..", "node_modules", ".bin", "tsc");

function run(
  args: string[],
  input?: string,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    input,
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("starlark command", () => {
  let dir: string;
  beforeAll(() => {
    // The bin runs the compiled package; build it (incrementally) first.
    execFileSync(process.execPath, [tsc, "-b", pkg], { stdio: "inherit" });
    dir = mkdtempSync(path.join(tmpdir(), "starlark-cli-"));
  }, 120_000);

  it("runs a file, printing to stdout and exiting 0", () => {
    const file = path.join(dir, "ok.star");
    writeFileSync(file, 'x = [i * i for i in range(4)]\nprint(x, "done")\n');
    expect(run([file])).toEqual({
      status: 0,
      stdout: "[0, 1, 4, 9] done\n",
      stderr: "",
    });
  });

  it("reads standard input with - and honours --option and --fstrings", () => {
    const r = run(
      [
        "--option",
        "while",
        "--option=toplevelcontrol",
        "--option",
        "globalreassign",
        "--fstrings",
        "-",
      ],
      'n = 0\nwhile n < 3:\n    n += 1\nprint(f"n={n}")\n',
    );
    expect(r.stdout).toBe("n=3\n");
    expect(r.status).toBe(0);
  });

  it("turns every option on with --option all", () => {
    const r = run(
      ["--option", "all", "-"],
      "s = set([1])\nfor i in range(2):\n    s.add(i)\nprint(sorted(s))\n",
    );
    expect(r.stdout).toBe("[0, 1]\n");
  });

  it("prints a runtime error with its position on stderr and exits 1", () => {
    const file = path.join(dir, "bad.star");
    writeFileSync(file, "def f(x):\n    return x + 'a'\nf(1)\n");
    const r = run([file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${file}:2:14: unknown binary op: int + string`);
  });

  it("prints a syntax error with its position and exits 1", () => {
    const r = run(["-"], "x = (1,\n");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^<stdin>:\d+:\d+: /);
  });

  it("rejects top-level loops without the option", () => {
    const r = run(["-"], "for i in range(2):\n    pass\n");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("for loop not within a function");
  });
});
