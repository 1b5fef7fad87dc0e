import { readFileSync } from "node:fs";

import { describe, expect, it } from "vitest";

import { runExecSuite } from "./exec-suite.js";
import { conformanceDir, STATIC_SUITE_FILES } from "./static-suites.js";

// Keys "file:line" of cases known not to pass yet; shared with the static suites.
const expectedFailures = JSON.parse(
  readFileSync(new URL("./expected-failures.json", import.meta.url), "utf8"),
) as Record<string, string>;

const isStaticKey = (key: string): boolean =>
  STATIC_SUITE_FILES.some((f) => key.startsWith(`${f}:`));

const dir = conformanceDir();

describe.skipIf(dir === null && process.env.CI !== "true")(
  "evaluation conformance suite (skipped when ../shared/conformance is absent, outside CI)",
  () => {
    it("finds the conformance suite (a missing suite fails in CI)", () => {
      expect(dir).not.toBeNull();
    });

    it("fails exactly the cases listed in expected-failures.json for the exec files", async () => {
      const result = await runExecSuite(dir!);
      const failing = [...new Set(result.failureKeys)].sort();
      const listed = Object.keys(expectedFailures)
        .filter((k) => !isStaticKey(k))
        .sort();
      const unexpected = failing.filter((k) => !listed.includes(k));
      const nowPassing = listed.filter((k) => !failing.includes(k));
      expect({
        unexpected,
        nowPassing,
        messages: result.failures.filter((m) =>
          unexpected.some((k) => m.startsWith(`${k}:`)),
        ),
      }).toEqual({ unexpected: [], nowPassing: [], messages: [] });
      expect(result.passed).toBeGreaterThanOrEqual(80);
    }, 60_000);
  },
);
