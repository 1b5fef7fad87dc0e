/**
 * `npm run bench -- [name...]`: runs bench/src/<name>.ts (all known benches when none is named)
 * one after another and prints one JSON line per measure. Exit code 1 if a measure misses its target.
 */
import type { BenchModule, BenchResult } from "./harness.js";
import { print } from "./harness.js";

const KNOWN = [
  "upstream",
  "mcp",
  "chat",
  "state",
  "telemetry",
  "starlark",
  "codemode",
] as const;

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const selected = names.length > 0 ? names : [...KNOWN];
  const all: BenchResult[] = [];
  for (const name of selected) {
    let mod: BenchModule;
    try {
      mod = (await import(`./${name}.js`)) as BenchModule;
    } catch (e) {
      if (names.length > 0)
        throw new Error(`unknown bench "${name}"; known: ${KNOWN.join(", ")}`, {
          cause: e,
        });
      continue; // a bench not written yet is not part of "all"
    }
    const results = await mod.run();
    print(results);
    all.push(...results);
  }
  if (all.some((r) => !r.pass)) process.exitCode = 1;
}

await main();
