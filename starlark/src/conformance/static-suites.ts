// The parse-only and resolve-only conformance suites (HARNESS.md sections 3 and 4):
// testdata/syntax_errors.star (starlark-go's TestParseErrors) and testdata/resolve.star
// (TestResolve). Each chunk is one case; a case passes when every error it produces is
// expected and every expectation is met.

import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { resolve } from "../resolve/resolver.js";
import type { FileOptions } from "../syntax/ast.js";
import { StarlarkSyntaxError } from "../syntax/errors.js";
import { DEFAULT_OPTIONS, parse } from "../syntax/parser.js";
import { type Chunk, CHUNK_OPTION_NAMES, readChunks } from "./chunked-file.js";

export interface SuiteResult {
  passed: number;
  failed: number;
  /** one message per failed expectation or unexpected error, "file:line: ..." */
  failures: string[];
  /** "file:line" of each failure, the keys of expected-failures.json */
  failureKeys: string[];
}

/**
 * The conformance testdata directory: $STARLARK_CONFORMANCE_DIR, else
 * ../shared/conformance/starlark/testdata next to the repository root (found from this
 * module's location). Returns null if it does not exist.
 */
export function conformanceDir(
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  const fromEnv = env.STARLARK_CONFORMANCE_DIR;
  if (fromEnv !== undefined && fromEnv !== "")
    return existsSync(fromEnv) ? fromEnv : null;
  // This file is starlark/src/conformance/x.ts (or starlark/dist/conformance/x.js): the
  // repository root is three levels up.
  const repoRoot = path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    "..",
    "..",
    "..",
  );
  const dir = path.resolve(
    repoRoot,
    "..",
    "shared",
    "conformance",
    "starlark",
    "testdata",
  );
  return existsSync(dir) ? dir : null;
}

/** The dialect options a chunk asks for with `option:NAME` comments. */
export function chunkOptions(chunk: Chunk): FileOptions {
  const opts: Record<string, boolean> = { ...DEFAULT_OPTIONS };
  for (const name of CHUNK_OPTION_NAMES) opts[name] = chunk.hasOption(name);
  return opts as unknown as FileOptions;
}

/** Counts a finished chunk as passed or failed, keeping each failure's file:line key. */
export function recordChunk(result: SuiteResult, chunk: Chunk): void {
  chunk.done();
  if (chunk.failures.length === 0) {
    result.passed++;
    return;
  }
  result.failed++;
  for (const f of chunk.failures) {
    result.failures.push(f.message);
    result.failureKeys.push(`${chunk.filename}:${f.line}`);
  }
}

const crashed = (chunk: Chunk, err: unknown): void =>
  chunk.fail(
    chunk.startLine,
    `crash: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
  );

/** HARNESS section 4 (`filePath` is used in positions; failures are keyed by its base name):
 * parse each chunk with default options; the first syntax error is checked. */
export function runSyntaxErrorsSuite(
  filePath: string,
  content: string,
  result: SuiteResult,
): void {
  for (const chunk of readChunks(path.basename(filePath), content)) {
    try {
      parse(filePath, chunk.source);
    } catch (err) {
      if (err instanceof StarlarkSyntaxError)
        chunk.gotError(err.pos.line, err.msg);
      else crashed(chunk, err);
    }
    recordChunk(result, chunk);
  }
}

const isPredeclared = (name: string): boolean => name === "M";
const isUniversal = (name: string): boolean => name === "U" || name === "float";

/** HARNESS section 3: parse with the chunk's options (an error fails the case), then resolve
 * with M predeclared and U, float universal; every resolver error is checked. */
export function runResolveSuite(
  filePath: string,
  content: string,
  result: SuiteResult,
): void {
  for (const chunk of readChunks(path.basename(filePath), content)) {
    try {
      const file = parse(filePath, chunk.source, chunkOptions(chunk));
      for (const err of resolve(file, isPredeclared, isUniversal))
        chunk.gotError(err.pos.line, err.msg);
    } catch (err) {
      if (err instanceof StarlarkSyntaxError)
        chunk.fail(err.pos.line, `unexpected parse error: ${err.message}`);
      else crashed(chunk, err);
    }
    recordChunk(result, chunk);
  }
}

export const STATIC_SUITE_FILES = [
  "syntax_errors.star",
  "resolve.star",
] as const;

/** Runs both static suites from `dir` (see conformanceDir). */
export async function runStaticSuites(dir: string): Promise<SuiteResult> {
  const result: SuiteResult = {
    passed: 0,
    failed: 0,
    failures: [],
    failureKeys: [],
  };
  const [syntaxSrc, resolveSrc] = await Promise.all(
    STATIC_SUITE_FILES.map((f) => readFile(path.join(dir, f), "utf8")),
  );
  runSyntaxErrorsSuite(
    path.join(dir, "syntax_errors.star"),
    syntaxSrc!,
    result,
  );
  runResolveSuite(path.join(dir, "resolve.star"), resolveSrc!, result);
  return result;
}
