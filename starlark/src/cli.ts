#!/usr/bin/env node
// The `starlark` command: starlark [--option NAME]... [--fstrings] FILE|-
// Runs a file (or standard input) with the given dialect options; print() goes to stdout.
// Exits 0 on success; on an error prints the message with its position (and, for runtime
// errors, the Starlark call stack) to stderr and exits 1. `--option all` turns every option on.

import { readFileSync } from "node:fs";

import { EvalError } from "./eval/index.js";
import { execFile } from "./eval/index.js";
import type { FileOptions } from "./syntax/ast.js";

const OPTION_NAMES = [
  "set",
  "while",
  "toplevelcontrol",
  "globalreassign",
  "recursion",
  "loadbindsglobally",
] as const;
const USAGE = `usage: starlark [--option NAME]... [--fstrings] FILE|-\n  options: ${OPTION_NAMES.join(", ")}, all`;

interface Args {
  options: Partial<Record<keyof FileOptions, boolean>>;
  file: string;
}

// `all` turns on every option except the deprecated loadbindsglobally.
function applyOption(options: Args["options"], name: string): boolean {
  if (name === "all") {
    for (const n of OPTION_NAMES) options[n] = n !== "loadbindsglobally";
    options.fstrings = true;
    return true;
  }
  if (!(OPTION_NAMES as readonly string[]).includes(name)) return false;
  options[name as (typeof OPTION_NAMES)[number]] = true;
  return true;
}

// eslint-disable-next-line complexity -- one branch per command-line flag
function parseArgs(argv: readonly string[]): Args | string {
  const options: Args["options"] = {};
  let file: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--fstrings") options.fstrings = true;
    else if (a === "--option" || a.startsWith("--option=")) {
      const name = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (!applyOption(options, name ?? ""))
        return `unknown option ${JSON.stringify(name ?? "")}\n${USAGE}`;
    } else if (a === "-h" || a === "--help") return USAGE;
    else if (file === undefined && (a === "-" || !a.startsWith("-"))) file = a;
    else return `unexpected argument ${JSON.stringify(a)}\n${USAGE}`;
  }
  if (file === undefined) return USAGE;
  return { options, file };
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    process.stderr.write(`${args}\n`);
    return 2;
  }
  const source = readFileSync(args.file === "-" ? 0 : args.file, "utf8");
  try {
    await execFile({
      filename: args.file === "-" ? "<stdin>" : args.file,
      source,
      options: args.options,
      print: (msg) => void process.stdout.write(`${msg}\n`),
    });
    return 0;
  } catch (e) {
    if (e instanceof EvalError)
      process.stderr.write(`${e.backtrace()}\n${e.message}\n`);
    else
      process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}

process.exitCode = await main();
