// Host values and builtins of starlark-go's conformance harness (eval_test.go and
// starlarktest): the assert module's predeclared builtins (error, catch, matches, module,
// _freeze, _floateq) and the test values hasfields, fibonacci and struct.

import type { Thread } from "../eval/index.js";
import { Builtin, type BuiltinFn } from "../eval/index.js";
import { List } from "../eval/index.js";
import { EvalError, fail, StarlarkError } from "../eval/index.js";
import { HostModule, Struct } from "../eval/index.js";
import { call, callStack } from "../eval/index.js";
import {
  Float,
  freeze,
  type HashKey,
  type Iter,
  StarObject,
  str,
  type Value,
} from "../eval/index.js";

export type Reporter = (line: number | undefined, msg: string) => void;

export const REPORTER = "reporter";

// The innermost line of the call stack that lies in `file`.
export function lineInFile(
  stack: readonly { file: string; line: number }[],
  file: string,
): number | undefined {
  for (let i = stack.length - 1; i >= 0; i--) {
    const f = stack[i];
    if (f?.file === file) return f.line;
  }
  return undefined;
}

const errorFn: BuiltinFn = (thread, args) => {
  const report = thread.locals.get(REPORTER) as
    ((t: Thread, msg: string) => void) | undefined;
  const msg = args.map(str).join(" ");
  if (report) report(thread, msg);
  return null;
};

function messageOf(e: unknown): string {
  if (e instanceof EvalError) {
    if (e.isLimit) throw e;
    return e.msg;
  }
  if (e instanceof StarlarkError) return e.msg;
  throw e;
}

const catchFn: BuiltinFn = (thread, args) => {
  const f = args[0] ?? null;
  try {
    const r = call(thread, f, []);
    if (r instanceof Promise) return r.then(() => null, messageOf);
    return null;
  } catch (e) {
    return messageOf(e);
  }
};

const matchesFn: BuiltinFn = (_t, args) => {
  const [pattern, s] = args;
  if (typeof pattern !== "string" || typeof s !== "string")
    fail("matches: want (pattern, str)");
  return new RegExp(pattern).test(s);
};

const moduleFn: BuiltinFn = (_t, args, kwargs) => {
  const name = args[0];
  if (typeof name !== "string") return fail("module: want name string");
  return new HostModule(name, kwargs);
};

const freezeFn: BuiltinFn = (_t, args) => {
  const x = args[0] ?? null;
  freeze(x);
  return x;
};

const bits = (x: number): bigint => {
  const b = new BigInt64Array(new Float64Array([x]).buffer)[0] ?? 0n;
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b;
};

const floateqFn: BuiltinFn = (_t, args) => {
  const [x, y] = args.map((a) => (a instanceof Float ? a.v : Number(a)));
  if (x === undefined || y === undefined) return false;
  if (Number.isNaN(x) && Number.isNaN(y)) return true;
  const d = bits(x) - bits(y);
  return d >= -1n && d <= 1n;
};

export function assertPredeclared(): Map<string, Value> {
  return new Map<string, Value>([
    ["error", new Builtin("error", errorFn)],
    ["catch", new Builtin("catch", catchFn)],
    ["matches", new Builtin("matches", matchesFn)],
    ["module", new Builtin("module", moduleFn)],
    ["_freeze", new Builtin("freeze", freezeFn)],
    ["_floateq", new Builtin("floateq", floateqFn)],
  ]);
}

// A mutable object with arbitrary settable fields (eval_test.go's hasfields).
export class HasFields extends StarObject {
  readonly typeName = "hasfields";
  private readonly fields = new Map<string, Value>();
  private frozen = false;
  override attr(name: string): Value | undefined {
    return this.fields.get(name);
  }
  override attrNames(): string[] {
    return [...this.fields.keys()].sort();
  }
  override setField(name: string, v: Value): void {
    if (this.frozen) fail("cannot set field on a frozen hasfields");
    if (name.startsWith("no")) fail(`no .${name} field`);
    this.fields.set(name, v);
  }
  override freeze(): void {
    this.frozen = true;
    for (const v of this.fields.values()) freeze(v);
  }
  override hashKey(): HashKey {
    return this;
  }
  override binaryOp(
    op: string,
    other: Value,
    right: boolean,
  ): Value | undefined {
    if (op === "+" && right && other instanceof List) return 42;
    return undefined;
  }
}

// An infinite iterable of Fibonacci numbers (eval_test.go's fib).
class Fibonacci extends StarObject {
  readonly typeName = "fib";
  override iterate(): Iter {
    let a = 0;
    let b = 1;
    return {
      next: () => {
        const r = a;
        [a, b] = [b, a + b];
        return r;
      },
      done: () => {},
    };
  }
  override hashKey(): HashKey {
    return fail("fib is unhashable");
  }
}

export function testPredeclared(): Map<string, Value> {
  return new Map<string, Value>([
    ["hasfields", new Builtin("hasfields", () => new HasFields())],
    ["fibonacci", new Fibonacci()],
    [
      "struct",
      new Builtin("struct", (_t, args, kwargs) => {
        if (args.length > 0) fail("struct: unexpected positional arguments");
        return new Struct(kwargs);
      }),
    ],
  ]);
}

export { callStack };
