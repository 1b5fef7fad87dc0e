// `npm run conformance -w starlark`: runs the static suites and the exec suite, prints every
// failure (marking those listed in expected-failures.json) and "N passed, N failed". Exits 1
// when a failure is not listed or a listed case passes; a missing suite is skipped, except in
// CI where it is a failure.

import { readFileSync } from "node:fs";

import { runExecSuite } from "./exec-suite.js";
import { conformanceDir, runStaticSuites } from "./static-suites.js";

const expected = JSON.parse(
  readFileSync(
    new URL("../../src/conformance/expected-failures.json", import.meta.url),
    "utf8",
  ),
) as Record<string, string>;

const dir = conformanceDir();
if (dir === null) {
  const ci = process.env.CI === "true";
  console.log(
    `no Starlark conformance suite found (set STARLARK_CONFORMANCE_DIR); ${ci ? "failing: CI=true requires it" : "skipping"}`,
  );
  process.exit(ci ? 1 : 0);
}

const stat = await runStaticSuites(dir);
const exec = await runExecSuite(dir);
const failures = [...stat.failures, ...exec.failures];
const keys = new Set([...stat.failureKeys, ...exec.failureKeys]);
for (const f of failures) {
  const key = /^([^:]+:\d+)/.exec(f)?.[1] ?? "";
  console.log(`${key in expected ? "expected " : ""}FAIL ${f}`);
}
const nowPassing = Object.keys(expected).filter((k) => !keys.has(k));
for (const k of nowPassing)
  console.log(`listed in expected-failures.json but passes: ${k}`);
const unexpected = [...keys].filter((k) => !(k in expected));
console.log(
  `${stat.passed + exec.passed} passed, ${stat.failed + exec.failed} failed`,
);
process.exit(unexpected.length > 0 || nowPassing.length > 0 ? 1 : 0);
