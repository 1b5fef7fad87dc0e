// The interpreter loop: runs bytecode with an explicit frame stack, as starlark-go's
// interp.go does.
//
// Starlark-to-Starlark calls push a Frame and continue in the same loop (no JS recursion),
// so call depth is bounded by maxCallDepth, not by the JS stack. The loop is synchronous.
// When a builtin returns a Promise, the loop saves its program counter in the frame and
// returns a Promise that resumes the same loop with the settled value (or unwinds with the
// error): one evaluator serves both synchronous and asynchronous hosts, and a script that
// makes no async call never touches the microtask queue. Periodic checkpoints (every
// CHECK_INTERVAL steps) enforce the step budget, timeouts and cancellation, and yield to the
// event loop while a timeout or signal is in force.
//
// run(thread, base) executes until the frame at index `base` returns. Builtins that call
// back into Starlark (sorted's key, the test harness's catch) use call(), which runs a
// nested loop for the callee's frame.

/* eslint-disable complexity -- the instruction dispatch switches have one case per opcode; splitting them costs a call per instruction */

import { chargeElems, chargeString, setBudget } from "./alloc.js";
import { Builtin, type Kwargs } from "./builtin.js";
import { Dict, List } from "./collections.js";
import type { FieldSpec, LoadSpec } from "./compile.js";
import { EvalError, fail, LimitError, StarlarkError } from "./errors.js";
import { formatField } from "./format.js";
import { Cell, kwargsFromMapping, setArgs, StarFunction } from "./function.js";
import * as op from "./opcodes.js";
import * as ops from "./ops.js";
import { nearest } from "./spell.js";
import { Frame, type Thread } from "./thread.js";
import { UNIVERSE } from "./universe.js";
import {
  type Iter,
  mkTuple,
  repr,
  truth,
  typeName,
  type Value,
} from "./value.js";

export function enterFunction(
  thread: Thread,
  fn: StarFunction,
  args: readonly Value[],
  kwargs: Kwargs,
): Frame {
  const code = fn.code;
  if (thread.frames.length >= thread.limits.maxCallDepth)
    fail("Starlark stack overflow");
  if (!code.prog.recursion) {
    for (const f of thread.frames)
      if (f.code === code) fail(`function ${code.name} called recursively`);
  }
  let locals: (Value | undefined)[];
  if (code.simple && kwargs.length === 0 && args.length === code.numParams) {
    locals = new Array<Value | undefined>(code.localNames.length);
    for (let i = 0; i < args.length; i++) locals[i] = args[i];
  } else {
    locals = setArgs(fn, args, kwargs);
    for (const i of code.cells)
      locals[i] = new Cell(locals[i]) as unknown as Value;
  }
  const fr = new Frame(code, locals, fn, fn.module);
  thread.frames.push(fr);
  return fr;
}

function hostErrorMessage(e: unknown): string {
  if (e instanceof StarlarkError) return e.msg;
  // The JS stack ran out inside a builtin (str/==/json of a value nested thousands deep).
  if (e instanceof RangeError && e.message.includes("call stack"))
    return "Starlark stack overflow (value nested too deeply)";
  if (e instanceof Error) return e.message;
  return String(e);
}

function prefixError(b: Builtin, e: unknown): unknown {
  if (e instanceof EvalError || e instanceof LimitError) return e;
  const err = new StarlarkError(`${b.name}: ${hostErrorMessage(e)}`);
  if (!(e instanceof StarlarkError))
    Object.defineProperty(err, "cause", { value: e });
  return err;
}

export function callBuiltin(
  thread: Thread,
  b: Builtin,
  args: Value[],
  kwargs: Kwargs,
): Value | Promise<Value> {
  let r: Value | Promise<Value>;
  try {
    r = b.fn(thread, args, kwargs, b);
  } catch (e) {
    throw prefixError(b, e);
  } finally {
    setBudget(thread.budget);
  }
  if (r instanceof Promise) {
    return r.then(
      (v) => v,
      (e: unknown) => {
        throw prefixError(b, e);
      },
    );
  }
  return r;
}

// Calls any callable value; used by builtins and the host API.
export function call(
  thread: Thread,
  fn: Value,
  args: Value[],
  kwargs: Kwargs = [],
): Value | Promise<Value> {
  if (fn instanceof StarFunction) {
    enterFunction(thread, fn, args, kwargs);
    return run(thread, thread.frames.length - 1);
  }
  if (fn instanceof Builtin) return callBuiltin(thread, fn, args, kwargs);
  return fail(`invalid call of non-function (${typeName(fn)})`);
}

// Sentinel returned by doCall when it pushed a Starlark frame.
const PUSHED = Symbol("pushed");

function popArgs(
  stack: Value[],
  arg: number,
): { fn: Value; args: Value[]; kwargs: Kwargs } {
  const npos = arg & 0xff;
  const nkw = (arg >> 8) & 0xff;
  const kwmap = arg & 0x20000 ? stack.pop() : undefined;
  const varargs = arg & 0x10000 ? stack.pop() : undefined;
  const kwargs: Kwargs = [];
  if (nkw > 0) {
    const flat = stack.splice(stack.length - 2 * nkw);
    for (let i = 0; i < flat.length; i += 2)
      kwargs.push([flat[i] as string, flat[i + 1] ?? null]);
  }
  const args = npos > 0 ? stack.splice(stack.length - npos) : [];
  const fn = stack.pop() ?? null;
  if (varargs !== undefined) {
    const it = ops.iterate(varargs);
    if (!it)
      fail(`argument after * must be iterable, not ${typeName(varargs)}`);
    for (let v = it.next(); v !== undefined; v = it.next()) args.push(v);
    it.done();
  }
  if (kwmap !== undefined) kwargs.push(...kwargsFromMapping(kwmap));
  return { fn, args, kwargs };
}

// The fast path of a call: a Starlark function with only positional parameters, called with
// exactly that many positional arguments. Returns undefined to take the general path.
function enterPositional(
  thread: Thread,
  stack: Value[],
  n: number,
): typeof PUSHED | undefined {
  const fn = stack[stack.length - 1 - n];
  if (!(fn instanceof StarFunction)) return undefined;
  const code = fn.code;
  if (
    !code.simple ||
    code.numParams !== n ||
    thread.frames.length >= thread.limits.maxCallDepth
  )
    return undefined;
  if (!code.prog.recursion) {
    for (const f of thread.frames) if (f.code === code) return undefined;
  }
  const locals = new Array<Value | undefined>(code.localNames.length);
  for (let i = n - 1; i >= 0; i--) locals[i] = stack.pop();
  stack.pop();
  thread.frames.push(new Frame(code, locals, fn, fn.module));
  return PUSHED;
}

const NO_KWARGS: Kwargs = [];

// A call with only positional arguments: no argument decoding, no keyword list.
function callPositional(
  thread: Thread,
  stack: Value[],
  n: number,
): Value | Promise<Value> | typeof PUSHED {
  const fn = stack[stack.length - 1 - n];
  if (fn instanceof Builtin) {
    const args = n > 0 ? stack.splice(stack.length - n) : [];
    stack.pop();
    return callBuiltin(thread, fn, args, NO_KWARGS);
  }
  return enterPositional(thread, stack, n) ?? doCall(thread, stack, n);
}

function doCall(
  thread: Thread,
  stack: Value[],
  arg: number,
): Value | Promise<Value> | typeof PUSHED {
  const { fn, args, kwargs } = popArgs(stack, arg);
  if (fn instanceof StarFunction) {
    enterFunction(thread, fn, args, kwargs);
    return PUSHED;
  }
  if (fn instanceof Builtin) return callBuiltin(thread, fn, args, kwargs);
  return fail(`invalid call of non-function (${typeName(fn)})`);
}

// The elements of x for an n-target assignment (the caller pushes them last first).
function unpack(x: Value, n: number): readonly Value[] {
  let elems: readonly Value[];
  if (Array.isArray(x)) elems = x as readonly Value[];
  else if (x instanceof List) elems = x.elems;
  else {
    if (!ops.isIterable(x)) fail(`got ${typeName(x)} in sequence assignment`);
    elems = ops.toArray(x);
  }
  if (elems.length > n)
    fail(`too many values to unpack (got ${elems.length}, want ${n})`);
  if (elems.length < n)
    fail(`too few values to unpack (got ${elems.length}, want ${n})`);
  return elems;
}

function loadModule(
  thread: Thread,
  spec: LoadSpec,
): Value[] | Promise<Value[]> {
  if (!thread.load) fail("load not implemented by this application");
  const pick = (m: Map<string, Value>): Value[] =>
    spec.names.map((name) => {
      const v = m.get(name);
      if (v !== undefined) return v;
      const near = nearest(name, m.keys());
      return fail(
        `load: name ${name} not found in module ${spec.module}${near ? ` (did you mean ${near}?)` : ""}`,
      );
    });
  let r: Map<string, Value> | Promise<Map<string, Value>>;
  try {
    r = thread.load(spec.module, thread);
  } finally {
    setBudget(thread.budget);
  }
  if (r instanceof Promise) {
    return r.then(pick, (e: unknown) => {
      if (e instanceof EvalError || e instanceof LimitError) throw e;
      throw new StarlarkError(
        `cannot load ${spec.module}: ${hostErrorMessage(e)}`,
      );
    });
  }
  return pick(r);
}

function posOf(fr: Frame): { line: number; col: number } {
  const i = (fr.pc >> 1) - 1;
  if (i < 0) return { line: fr.code.line, col: fr.code.col };
  return {
    line: fr.code.lines[i] ?? fr.code.line,
    col: fr.code.cols[i] ?? fr.code.col,
  };
}

export function callStack(
  thread: Thread,
): { name: string; file: string; line: number; col: number }[] {
  return thread.frames.map((fr) => ({
    name: fr.code.name,
    file: fr.code.prog.filename,
    ...posOf(fr),
  }));
}

// Pops the frames of this run and converts e into an EvalError with the call stack.
function unwind(thread: Thread, base: number, e: unknown): EvalError {
  let err: EvalError;
  if (e instanceof EvalError) err = e;
  else {
    const msg =
      e instanceof StarlarkError
        ? e.msg
        : e instanceof Error
          ? e.message
          : String(e);
    // For a failed host call, expose the host's own error as the cause.
    const hostCause =
      e instanceof StarlarkError ? (e as { cause?: unknown }).cause : undefined;
    err = new EvalError(msg, callStack(thread), hostCause ?? e);
  }
  while (thread.frames.length > base) {
    const fr = thread.frames.pop();
    for (const it of fr?.iters ?? []) it.done();
  }
  return err;
}

function resume(
  thread: Thread,
  base: number,
  fr: Frame,
  p: Promise<Value[]>,
): Promise<Value> {
  return thread.awaitHost(p).then(
    (vals) => {
      try {
        thread.checkCancel();
      } catch (e) {
        throw unwind(thread, base, e);
      }
      for (const v of vals) fr.stack.push(v);
      return run(thread, base);
    },
    (e: unknown) => {
      throw unwind(thread, base, e);
    },
  );
}

function yieldThenRun(thread: Thread, base: number): Promise<Value> {
  return new Promise<void>((r) => setImmediate(r)).then(() => {
    try {
      thread.checkCancel();
    } catch (e) {
      throw unwind(thread, base, e);
    }
    return run(thread, base);
  });
}

function lookupPredeclared(fr: Frame, name: string): Value {
  const v = fr.module.predeclared.get(name);
  if (v !== undefined) return v;
  const u = UNIVERSE.get(name);
  if (u === undefined) fail(`undefined: ${name}`);
  return u;
}

function inplaceAdd(x: Value, y: Value): Value {
  if (x instanceof List) {
    const it = ops.iterate(y);
    if (it !== undefined) {
      it.done();
      x.checkMutable("apply += to");
      const more = ops.toArray(y);
      chargeElems(x.elems.length + more.length, more.length);
      for (const v of more) x.elems.push(v);
      return x;
    }
  }
  return ops.add(x, y);
}

function inplacePipe(x: Value, y: Value): Value {
  if (x instanceof Dict && y instanceof Dict) {
    if (x.frozen) fail("cannot apply |= to frozen hash table");
    for (const e of y.map.values()) x.insert(e.k, e.v);
    return x;
  }
  return ops.bitOr(x, y);
}

function makeFunction(fr: Frame, stack: Value[], idx: number): StarFunction {
  const code = fr.code.prog.funcs[idx];
  if (!code) throw new Error(`bad function index ${idx}`);
  const cells =
    code.freeNames.length > 0
      ? (stack.splice(
          stack.length - code.freeNames.length,
        ) as unknown as Cell[])
      : [];
  const defaults =
    code.numDefaults > 0 ? stack.splice(stack.length - code.numDefaults) : [];
  return new StarFunction(code, defaults, cells, fr.module);
}

function concat(stack: Value[], n: number): string {
  const parts = stack.splice(stack.length - n) as string[];
  const s = parts.join("");
  chargeString(s.length);
  return s;
}

function unboundLocal(fr: Frame, i: number): never {
  return fail(
    `local variable ${fr.code.localNames[i] ?? "?"} referenced before assignment`,
  );
}

function unboundGlobal(fr: Frame, i: number): never {
  return fail(
    `global variable ${fr.code.prog.globalNames[i] ?? "?"} referenced before assignment`,
  );
}

function setDictUniq(d: Dict, k: Value, v: Value): void {
  if (d.has(k)) fail(`duplicate key: ${repr(k)}`);
  chargeElems(d.size + 1, 1);
  d.insert(k, v);
}

/* eslint-disable max-depth -- the dispatch switch is the interpreter; splitting it costs a call per instruction */
// Case labels are numeric literals (named in comments, values from opcodes.ts) so that V8
// compiles the switch to a jump table; `case op.X` would be a chain of property loads.
export function run(thread: Thread, base: number): Value | Promise<Value> {
  setBudget(thread.budget);
  let fr = thread.frames[thread.frames.length - 1] as Frame;
  let code = fr.code.code;
  let stack = fr.stack;
  let locals = fr.locals;
  let consts = fr.code.prog.consts;
  let globals = fr.module.globals;
  let pc = fr.pc;
  try {
    for (;;) {
      if (++thread.steps >= thread.checkAt && thread.checkpoint()) {
        fr.pc = pc;
        return yieldThenRun(thread, base);
      }
      const opcode = code[pc] as number;
      const arg = code[pc + 1] as number;
      pc += 2;
      switch (opcode) {
        case 0: // NOP
          break;
        case 1: // POP
          stack.pop();
          break;
        case 2: // DUP
          stack.push(stack[stack.length - 1] ?? null);
          break;
        case 3: {
          // DUP2
          const n = stack.length;
          stack.push(stack[n - 2] ?? null, stack[n - 1] ?? null);
          break;
        }
        case 4: {
          // EXCH
          const n = stack.length;
          const t = stack[n - 1] ?? null;
          stack[n - 1] = stack[n - 2] ?? null;
          stack[n - 2] = t;
          break;
        }
        case 5: {
          // ROT3
          const c = stack.pop() ?? null;
          stack.splice(stack.length - 2, 0, c);
          break;
        }
        case 6: // CONST
          stack.push(consts[arg] as Value);
          break;
        case 7: // NONE
          stack.push(null);
          break;
        case 8: // TRUE
          stack.push(true);
          break;
        case 9: // FALSE
          stack.push(false);
          break;
        case 10: {
          // LOCAL
          const v = locals[arg];
          if (v === undefined) {
            unboundLocal(fr, arg);
          }
          stack.push(v);
          break;
        }
        case 11: // SETLOCAL
          locals[arg] = stack.pop();
          break;
        case 12: {
          // LOCALCELL
          const v = (locals[arg] as unknown as Cell).v;
          if (v === undefined) {
            unboundLocal(fr, arg);
          }
          stack.push(v);
          break;
        }
        case 13: // SETLOCALCELL
          (locals[arg] as unknown as Cell).v = stack.pop();
          break;
        case 14: {
          // FREE
          const v = fr.fn?.freevars[arg]?.v;
          if (v === undefined) {
            fail(
              `local variable ${fr.code.freeNames[arg] ?? "?"} referenced before assignment`,
            );
          }
          stack.push(v);
          break;
        }
        case 15: // FREECELL
          stack.push(fr.fn?.freevars[arg] as unknown as Value);
          break;
        case 16: // CELL
          stack.push(locals[arg] as Value);
          break;
        case 17: {
          // GLOBAL
          const v = globals[arg];
          if (v === undefined) {
            unboundGlobal(fr, arg);
          }
          stack.push(v);
          break;
        }
        case 18: // SETGLOBAL
          globals[arg] = stack.pop();
          break;
        case 19: // PREDECLARED
          stack.push(lookupPredeclared(fr, consts[arg] as string));
          break;
        case 20: {
          // UNIVERSAL
          const v = UNIVERSE.get(consts[arg] as string);
          stack.push(
            v === undefined ? lookupPredeclared(fr, consts[arg] as string) : v,
          );
          break;
        }
        case 21: // JMP
          pc = arg;
          continue;
        case 22: // JMP_FALSE
          if (!truth(stack.pop() ?? null)) {
            pc = arg;
            continue;
          }
          break;
        case 23: // JMP_FALSE_OR_POP
          if (!truth(stack[stack.length - 1] ?? null)) {
            pc = arg;
            continue;
          }
          stack.pop();
          break;
        case 24: // JMP_TRUE_OR_POP
          if (truth(stack[stack.length - 1] ?? null)) {
            pc = arg;
            continue;
          }
          stack.pop();
          break;
        case 25: {
          // ITERPUSH
          (fr.iters ??= []).push(ops.mustIterate(stack.pop() ?? null));
          continue;
        }
        case 26: {
          // ITERJMP
          const iters = fr.iters as Iter[];
          const v = iters[iters.length - 1]?.next();
          if (v === undefined) {
            pc = arg;
            continue;
          }
          stack.push(v);
          break;
        }
        case 27: // ITERPOP
          fr.iters?.pop()?.done();
          break;
        case 28: // NOT
          stack.push(!truth(stack.pop() ?? null));
          break;
        case 68: {
          // RETURN
          const v = stack.pop() ?? null;
          if (fr.iters) for (const it of fr.iters) it.done();
          thread.frames.pop();
          if (thread.frames.length <= base) return v;
          fr = thread.frames[thread.frames.length - 1] as Frame;
          code = fr.code.code;
          stack = fr.stack;
          locals = fr.locals;
          consts = fr.code.prog.consts;
          globals = fr.module.globals;
          pc = fr.pc;
          stack.push(v);
          continue;
        }
        case 65: {
          // CALL
          fr.pc = pc;
          const r =
            arg < 256
              ? callPositional(thread, stack, arg)
              : doCall(thread, stack, arg);
          if (r === PUSHED) {
            fr = thread.frames[thread.frames.length - 1] as Frame;
            code = fr.code.code;
            stack = fr.stack;
            locals = fr.locals;
            consts = fr.code.prog.consts;
            globals = fr.module.globals;
            pc = 0;
            continue;
          }
          if (r instanceof Promise)
            return resume(
              thread,
              base,
              fr,
              r.then((v) => [v]),
            );
          stack.push(r);
          continue;
        }
        case 32: {
          // PLUS
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          if (typeof x === "number" && typeof y === "number") {
            const r = x + y;
            if (Number.isSafeInteger(r)) {
              stack.push(r);
              break;
            }
          }
          stack.push(ops.add(x, y));
          break;
        }
        case 33: {
          // MINUS
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          if (typeof x === "number" && typeof y === "number") {
            const r = x - y;
            if (Number.isSafeInteger(r)) {
              stack.push(r);
              break;
            }
          }
          stack.push(ops.sub(x, y));
          break;
        }
        case 34: {
          // STAR
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          if (typeof x === "number" && typeof y === "number") {
            const r = x * y;
            if (Number.isSafeInteger(r)) {
              stack.push(r === 0 ? 0 : r);
              break;
            }
          }
          stack.push(ops.mul(x, y));
          break;
        }
        case 36: {
          // SLASHSLASH
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          stack.push(
            typeof x === "number" && typeof y === "number" && x >= 0 && y > 0
              ? (x - (x % y)) / y
              : ops.floorDiv(x, y),
          );
          break;
        }
        case 37: {
          // PERCENT
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          stack.push(
            typeof x === "number" && typeof y === "number" && x >= 0 && y > 0
              ? x % y
              : ops.mod(x, y),
          );
          break;
        }
        case 51: {
          // INPLACE_ADD
          const y = stack.pop() ?? null;
          const x = stack.pop() ?? null;
          if (typeof x === "number" && typeof y === "number") {
            const r = x + y;
            if (Number.isSafeInteger(r)) {
              stack.push(r);
              break;
            }
          }
          stack.push(inplaceAdd(x, y));
          break;
        }
        case 43: {
          // EQL
          const y = stack.pop() ?? null;
          stack.push(ops.equals(stack.pop() ?? null, y));
          break;
        }
        case 44: {
          // NEQ
          const y = stack.pop() ?? null;
          stack.push(!ops.equals(stack.pop() ?? null, y));
          break;
        }
        case 45: {
          // LT
          const y = stack.pop() ?? null;
          stack.push(ops.lt(stack.pop() ?? null, y));
          break;
        }
        case 46: {
          // GT
          const y = stack.pop() ?? null;
          stack.push(ops.gt(stack.pop() ?? null, y));
          break;
        }
        case 47: {
          // LE
          const y = stack.pop() ?? null;
          stack.push(ops.le(stack.pop() ?? null, y));
          break;
        }
        case 48: {
          // GE
          const y = stack.pop() ?? null;
          stack.push(ops.ge(stack.pop() ?? null, y));
          break;
        }
        default:
          exec2(thread, fr, stack, opcode, arg);
          if (fr.pending !== undefined) {
            const p = fr.pending;
            fr.pending = undefined;
            fr.pc = pc;
            return resume(thread, base, fr, p);
          }
          continue;
      }
    }
  } catch (e) {
    fr.pc = pc;
    throw unwind(thread, base, e);
  }
}

/* eslint-enable max-depth */

// The less frequent instructions, kept out of the hot switch.
function exec2(
  thread: Thread,
  fr: Frame,
  stack: Value[],
  opcode: number,
  arg: number,
): void {
  if (opcode >= op.PLUS && opcode <= op.NOT_IN) {
    const y = stack.pop() ?? null;
    const x = stack.pop() ?? null;
    stack.push(binary(opcode, x, y));
    return;
  }
  exec3(thread, fr, stack, opcode, arg);
}

function binary(opcode: number, x: Value, y: Value): Value {
  switch (opcode) {
    case 32: // PLUS
      return ops.add(x, y);
    case 33: // MINUS
      return ops.sub(x, y);
    case 34: // STAR
      return ops.mul(x, y);
    case 35: // SLASH
      return ops.div(x, y);
    case 36: // SLASHSLASH
      return ops.floorDiv(x, y);
    case 37: // PERCENT
      return ops.mod(x, y);
    case 38: // AMP
      return ops.bitAnd(x, y);
    case 39: // PIPE
      return ops.bitOr(x, y);
    case 40: // CIRCUMFLEX
      return ops.bitXor(x, y);
    case 41: // LTLT
      return ops.shl(x, y);
    case 42: // GTGT
      return ops.shr(x, y);
    case 43: // EQL
      return ops.equals(x, y);
    case 44: // NEQ
      return !ops.equals(x, y);
    case 45: // LT
      return ops.lt(x, y);
    case 46: // GT
      return ops.gt(x, y);
    case 47: // LE
      return ops.le(x, y);
    case 48: // GE
      return ops.ge(x, y);
    case 49: // IN
      return ops.contains(y, x);
    default:
      return !ops.contains(y, x);
  }
}

function exec3(
  thread: Thread,
  fr: Frame,
  stack: Value[],
  opcode: number,
  arg: number,
): void {
  const consts = fr.code.prog.consts;
  switch (opcode) {
    case 29: // UPLUS
      stack.push(ops.pos(stack.pop() ?? null));
      return;
    case 30: // UMINUS
      stack.push(ops.neg(stack.pop() ?? null));
      return;
    case 31: // TILDE
      stack.push(ops.invert(stack.pop() ?? null));
      return;
    case 51: {
      // INPLACE_ADD
      const y = stack.pop() ?? null;
      stack.push(inplaceAdd(stack.pop() ?? null, y));
      return;
    }
    case 52: {
      // INPLACE_PIPE
      const y = stack.pop() ?? null;
      stack.push(inplacePipe(stack.pop() ?? null, y));
      return;
    }
    case 53: // MAKETUPLE
      chargeElems(arg);
      stack.push(mkTuple(arg > 0 ? stack.splice(stack.length - arg) : []));
      return;
    case 54: // MAKELIST
      chargeElems(arg);
      stack.push(new List(arg > 0 ? stack.splice(stack.length - arg) : []));
      return;
    case 55: // MAKEDICT
      stack.push(new Dict());
      return;
    case 56: {
      // SETDICT
      const v = stack.pop() ?? null;
      const k = stack.pop() ?? null;
      const d = stack[stack.length - 1] as Dict;
      chargeElems(d.size + 1, 1);
      d.insert(k, v);
      return;
    }
    case 57: {
      // SETDICTUNIQ
      const v = stack.pop() ?? null;
      const k = stack.pop() ?? null;
      setDictUniq(stack[stack.length - 1] as Dict, k, v);
      return;
    }
    case 58: {
      // APPEND
      const v = stack.pop() ?? null;
      const l = stack[stack.length - 1] as List;
      chargeElems(l.elems.length + 1, 1);
      l.elems.push(v);
      return;
    }
    default:
      exec4(thread, fr, stack, opcode, arg, consts);
  }
}

function exec4(
  thread: Thread,
  fr: Frame,
  stack: Value[],
  opcode: number,
  arg: number,
  consts: readonly unknown[],
): void {
  switch (opcode) {
    case 59: {
      // INDEX
      const y = stack.pop() ?? null;
      stack.push(ops.index(stack.pop() ?? null, y));
      return;
    }
    case 60: {
      // SETINDEX
      const i = stack.pop() ?? null;
      const x = stack.pop() ?? null;
      ops.setIndex(x, i, stack.pop() ?? null);
      return;
    }
    case 61: {
      // SLICE
      const step = stack.pop() ?? null;
      const hi = stack.pop() ?? null;
      const lo = stack.pop() ?? null;
      stack.push(ops.slice(stack.pop() ?? null, lo, hi, step));
      return;
    }
    case 62: // ATTR
      stack.push(ops.getAttr(stack.pop() ?? null, consts[arg] as string));
      return;
    case 63: {
      // SETFIELD
      const x = stack.pop() ?? null;
      ops.setField(x, consts[arg] as string, stack.pop() ?? null);
      return;
    }
    case 64: {
      // UNPACK
      const elems = unpack(stack.pop() ?? null, arg);
      for (let i = elems.length - 1; i >= 0; i--) stack.push(elems[i] ?? null);
      return;
    }
    case 66: // MAKEFUNC
      stack.push(makeFunction(fr, stack, arg));
      return;
    case 67: {
      // LOAD
      const r = loadModule(thread, consts[arg] as LoadSpec);
      if (r instanceof Promise) fr.pending = r;
      else for (const v of r) stack.push(v);
      return;
    }
    case 69: {
      // FORMAT
      const spec = consts[arg] as FieldSpec;
      stack.push(formatField(stack.pop() ?? null, spec.conversion, spec.spec));
      return;
    }
    case 70: // CONCAT
      stack.push(concat(stack, arg));
      return;
    default:
      throw new Error(
        `unknown opcode ${opcode} (${op.OP_NAMES[opcode] ?? "?"})`,
      );
  }
}
