// The evaluation conformance suite (HARNESS.md section 2, starlark-go's TestExecFile): every
// chunk of every testdata file except the static ones runs with fresh predeclared test values,
// the assert module (assert.star executed once with its host builtins) and per-chunk dialect
// options. A chunk passes when every runtime error it raises is expected by a `###` comment on
// the line of the innermost frame in the test file, every expectation is met and no assertion
// reported a failure.

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

import type { Value } from "../eval/index.js";
import { EvalError } from "../eval/index.js";
import { compileSource, execProgram } from "../eval/index.js";
import { jsonModule } from "../eval/index.js";
import { Thread } from "../eval/index.js";
import { type Chunk, readChunks } from "./chunked-file.js";
import {
  assertPredeclared,
  callStack,
  lineInFile,
  REPORTER,
  testPredeclared,
} from "./host-values.js";
import {
  chunkOptions,
  recordChunk,
  STATIC_SUITE_FILES,
  type SuiteResult,
} from "./static-suites.js";

const NOT_EXEC = new Set<string>([...STATIC_SUITE_FILES, "assert.star"]);

export async function execFileNames(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((f) => f.endsWith(".star") && !NOT_EXEC.has(f))
    .sort();
}

async function loadAssertModule(dir: string): Promise<Map<string, Value>> {
  const predeclared = assertPredeclared();
  const src = await readFile(path.join(dir, "assert.star"), "utf8");
  const prog = compileSource("assert.star", src, {}, predeclared);
  const module = await execProgram(
    new Thread({ name: "assert" }),
    prog,
    predeclared,
  );
  return new Map(module.entries());
}

interface Env {
  readonly dir: string;
  readonly assertModule: Map<string, Value>;
}

function loader(
  env: Env,
  filename: string,
): (module: string, thread: Thread) => Promise<Map<string, Value>> {
  return async (module, thread) => {
    if (module === "assert.star") return env.assertModule;
    if (module === "json.star")
      return new Map<string, Value>([["json", jsonModule]]);
    const src = await readFile(
      path.join(env.dir, path.dirname(filename), module),
      "utf8",
    );
    const predeclared = testPredeclared();
    const prog = compileSource(module, src, {}, predeclared);
    return new Map((await execProgram(thread, prog, predeclared)).entries());
  };
}

async function runChunk(env: Env, chunk: Chunk): Promise<void> {
  const filename = chunk.filename;
  const thread = new Thread({ load: loader(env, filename), print: () => {} });
  thread.locals.set(REPORTER, (t: Thread, msg: string) => {
    chunk.fail(
      lineInFile(callStack(t), filename) ?? chunk.startLine,
      `Error: ${msg}`,
    );
  });
  const predeclared = testPredeclared();
  try {
    const prog = compileSource(
      filename,
      chunk.source,
      chunkOptions(chunk),
      predeclared,
    );
    await execProgram(thread, prog, predeclared);
  } catch (e) {
    if (e instanceof EvalError) {
      const line = lineInFile(e.callStack, filename);
      if (line === undefined)
        chunk.fail(
          chunk.startLine,
          `error outside the test file: ${e.backtrace()}`,
        );
      else chunk.gotError(line, e.msg);
      return;
    }
    const pos = (e as { pos?: { line: number } }).pos;
    chunk.fail(
      pos?.line ?? chunk.startLine,
      `unexpected static error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`,
    );
  }
}

// Runs the exec files of `dir` (or only `only`), adding one pass or fail per chunk.
export async function runExecSuite(
  dir: string,
  only?: readonly string[],
): Promise<SuiteResult> {
  const result: SuiteResult = {
    passed: 0,
    failed: 0,
    failures: [],
    failureKeys: [],
  };
  const env: Env = { dir, assertModule: await loadAssertModule(dir) };
  for (const name of only ?? (await execFileNames(dir))) {
    const content = await readFile(path.join(dir, name), "utf8");
    for (const chunk of readChunks(name, content)) {
      await runChunk(env, chunk);
      recordChunk(result, chunk);
    }
  }
  return result;
}
