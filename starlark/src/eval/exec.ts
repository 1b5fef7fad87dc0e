// Entry points: parse, resolve, compile and run a file or an expression on a Thread.
//
// execFile returns a Promise because host functions may be asynchronous, but a script that
// makes no asynchronous call runs to completion synchronously inside the call (the Promise is
// already settled when returned). Modules are frozen after execution, as starlark-go's
// ExecFile does, so values shared with later evaluations cannot change under them.

import { resolve } from "../resolve/resolver.js";
import type { FileOptions } from "../syntax/ast.js";
import { parse, parseExpr } from "../syntax/parser.js";
import { compileExprFile, compileFile, type Program } from "./compile.js";
import { Cell, Module } from "./function.js";
import { run } from "./interp.js";
import {
  Frame,
  type Limits,
  type LoadFn,
  type PrintFn,
  Thread,
} from "./thread.js";
import { UNIVERSE } from "./universe.js";
import type { Value } from "./value.js";

export type Predeclared =
  Readonly<Record<string, Value>> | ReadonlyMap<string, Value>;

export interface ExecOptions {
  readonly filename?: string;
  readonly source: string;
  readonly predeclared?: Predeclared;
  readonly options?: Partial<FileOptions>;
  readonly limits?: Partial<Limits>;
  readonly signal?: AbortSignal;
  readonly load?: LoadFn;
  readonly print?: PrintFn;
  // Run on an existing thread (a load() callback executing a dependency on its caller's thread).
  readonly thread?: Thread;
}

export interface ExecResult {
  readonly globals: Map<string, Value>;
  readonly module: Module;
  readonly thread: Thread;
  // Evaluation steps the thread has executed so far.
  readonly steps: number;
}

function toMap(p: Predeclared | undefined): ReadonlyMap<string, Value> {
  if (p === undefined) return new Map();
  if (p instanceof Map) return p as ReadonlyMap<string, Value>;
  return new Map(Object.entries(p as Record<string, Value>));
}

// Resolves a parsed file against the predeclared names; throws the first resolver error
// (each carries file:line:col) with the full list on `errors`.
function resolveOrThrow(
  file: Parameters<typeof resolve>[0],
  predeclared: ReadonlyMap<string, Value>,
): void {
  const errs = resolve(
    file,
    (name) => predeclared.has(name),
    (name) => UNIVERSE.has(name),
  );
  const first = errs[0];
  if (first) throw Object.assign(first, { errors: errs });
}

export function compileSource(
  filename: string,
  source: string,
  options: Partial<FileOptions>,
  predeclared: ReadonlyMap<string, Value>,
): Program {
  const file = parse(filename, source, options);
  resolveOrThrow(file, predeclared);
  return compileFile(file);
}

function makeThread(opts: ExecOptions): Thread {
  if (opts.thread) return opts.thread;
  return new Thread({
    ...(opts.limits ? { limits: opts.limits } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.print ? { print: opts.print } : {}),
    ...(opts.load ? { load: opts.load } : {}),
  });
}

// Runs a compiled program's top level; synchronous unless a host call suspends it.
export function execProgram(
  thread: Thread,
  prog: Program,
  predeclared: ReadonlyMap<string, Value>,
): Module | Promise<Module> {
  const top = prog.toplevel;
  if (!top) throw new Error("program has no top level");
  const module = new Module(prog, predeclared);
  const locals = new Array<Value | undefined>(top.localNames.length).fill(
    undefined,
  );
  for (const i of top.cells)
    locals[i] = new Cell(undefined) as unknown as Value;
  thread.frames.push(new Frame(top, locals, undefined, module));
  const r = run(thread, thread.frames.length - 1);
  const finish = (): Module => {
    module.freeze();
    return module;
  };
  return r instanceof Promise ? r.then(finish) : finish();
}

export async function execFile(opts: ExecOptions): Promise<ExecResult> {
  const predeclared = toMap(opts.predeclared);
  const prog = compileSource(
    opts.filename ?? "<stdin>",
    opts.source,
    opts.options ?? {},
    predeclared,
  );
  const thread = makeThread(opts);
  const module = await execProgram(thread, prog, predeclared);
  return {
    globals: new Map(module.entries()),
    module,
    thread,
    steps: thread.steps,
  };
}

export interface EvalExprOptions extends Omit<ExecOptions, "load"> {
  readonly load?: never;
}

// Evaluates a single expression and returns its value.
export async function evalExpr(opts: EvalExprOptions): Promise<Value> {
  const predeclared = toMap(opts.predeclared);
  const filename = opts.filename ?? "<expr>";
  const expr = parseExpr(filename, opts.source, opts.options ?? {});
  // Resolve the expression as the body of an expression statement of an empty file.
  const file = parse(filename, "", opts.options ?? {});
  file.stmts.push({ kind: "ExprStmt", pos: expr.pos, x: expr });
  resolveOrThrow(file, predeclared);
  const prog = compileExprFile(file, expr);
  const thread = makeThread(opts);
  const top = prog.toplevel;
  if (!top) throw new Error("program has no top level");
  const module = new Module(prog, predeclared);
  const locals = new Array<Value | undefined>(top.localNames.length).fill(
    undefined,
  );
  for (const i of top.cells)
    locals[i] = new Cell(undefined) as unknown as Value;
  thread.frames.push(new Frame(top, locals, undefined, module));
  return await run(thread, thread.frames.length - 1);
}
