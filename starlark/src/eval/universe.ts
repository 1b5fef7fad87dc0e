// The universal builtins (spec.md "Built-in functions"): the names every module sees.

import { chargeWork } from "./alloc.js";
import { Builtin, type BuiltinFn, type Kwargs } from "./builtin.js";
import {
  Bytes,
  bytesFromUtf8,
  Dict,
  List,
  Range,
  StarSet,
} from "./collections.js";
import { fail, LimitError, StarlarkError } from "./errors.js";
import { call } from "./interp.js";
import { updateDict } from "./methods-table.js";
import { floatToInt, intAbs, intToFloat } from "./numeric.js";
import * as ops from "./ops.js";
import type { Thread } from "./thread.js";
import {
  optBool,
  optString,
  unpackArgs,
  unpackPositional,
  wantInt,
  wantString,
} from "./unpack.js";
import {
  Float,
  isInt,
  mkTuple,
  normInt,
  repr,
  str,
  truth,
  typeName,
  type Value,
} from "./value.js";

// Maps f over xs; synchronous unless some call returns a Promise.
export function mapMaybeAsync(
  xs: readonly Value[],
  f: (x: Value) => Value | Promise<Value>,
): Value[] | Promise<Value[]> {
  const out: Value[] = [];
  for (let i = 0; i < xs.length; i++) {
    const r = f(xs[i] ?? null);
    if (r instanceof Promise) {
      return (async () => {
        out.push(await r);
        for (let j = i + 1; j < xs.length; j++)
          out.push(await f(xs[j] ?? null));
        return out;
      })();
    }
    out.push(r);
  }
  return out;
}

function then<T, U>(v: T | Promise<T>, f: (x: T) => U): U | Promise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

function keyFn(
  thread: Thread,
  key: Value | undefined,
): ((x: Value) => Value | Promise<Value>) | undefined {
  if (key === undefined) return undefined;
  if (!(key instanceof Builtin) && typeName(key) !== "function")
    fail(`for parameter key: got ${typeName(key)}, want callable`);
  return (x) => call(thread, key, [x]);
}

// A stable top-down merge sort that asks less(right, left) when merging, the order in which
// starlark-go's sort meets incomparable elements (so its errors name them the same way).
export function mergeSort<T>(xs: T[], less: (a: T, b: T) => boolean): T[] {
  if (xs.length < 2) return xs;
  const mid = xs.length >> 1;
  const left = mergeSort(xs.slice(0, mid), less);
  const right = mergeSort(xs.slice(mid), less);
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (less(right[j] as T, left[i] as T)) out.push(right[j++] as T);
    else out.push(left[i++] as T);
  }
  while (i < left.length) out.push(left[i++] as T);
  while (j < right.length) out.push(right[j++] as T);
  return out;
}

function sorted(
  thread: Thread,
  args: Value[],
  kwargs: Kwargs,
): Value | Promise<Value> {
  const [iterable, key, reverse] = unpackArgs(args, kwargs, [
    "iterable",
    "key?",
    "reverse?",
  ]);
  if (!ops.isIterable(iterable ?? null))
    fail(
      `for parameter iterable: got ${typeName(iterable ?? null)}, want iterable`,
    );
  const xs = ops.toArray(iterable ?? null);
  const rev = optBool(reverse, "reverse", false);
  const kf = keyFn(thread, key);
  const keys = kf ? mapMaybeAsync(xs, kf) : xs;
  return then(keys, (ks) => {
    const less = (a: number, b: number): boolean =>
      ops.lt(ks[a] ?? null, ks[b] ?? null);
    const lt = rev ? (a: number, b: number): boolean => less(b, a) : less;
    chargeWork(xs.length * Math.ceil(Math.log2(xs.length + 1)));
    let idx = xs.map((_, i) => i);
    try {
      // V8's sort is stable; it only fails on incomparable keys.
      idx.sort((a, b) => (lt(a, b) ? -1 : lt(b, a) ? 1 : 0));
    } catch (e) {
      if (e instanceof LimitError || !(e instanceof StarlarkError)) throw e;
      // Re-sort in starlark-go's comparison order so that the error names the operands as
      // starlark-go does (or, if that order never meets the incomparable pair, succeeds).
      idx = mergeSort(
        xs.map((_, i) => i),
        lt,
      );
    }
    return new List(idx.map((i) => xs[i] ?? null));
  });
}

function minmax(name: "min" | "max") {
  return (
    thread: Thread,
    args: Value[],
    kwargs: Kwargs,
  ): Value | Promise<Value> => {
    const [key] = unpackArgs([], kwargs, ["key?"]);
    if (args.length === 0)
      fail(`${name} requires at least one positional argument`);
    const xs = args.length === 1 ? ops.toArray(args[0] ?? null) : args;
    if (xs.length === 0) fail("empty sequence");
    const kf = keyFn(thread, key);
    const keys = kf ? mapMaybeAsync(xs, kf) : xs;
    return then(keys, (ks) => {
      let best = 0;
      for (let i = 1; i < xs.length; i++) {
        const c = ops.compare("<", ks[i] ?? null, ks[best] ?? null);
        if (name === "min" ? c < 0 : c > 0) best = i;
      }
      return xs[best] ?? null;
    });
  };
}

const INT_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";

function basePrefix(s: string, base: number): { base: number; digits: string } {
  const p = s.slice(0, 2).toLowerCase();
  const prefixBase = p === "0x" ? 16 : p === "0o" ? 8 : p === "0b" ? 2 : 0;
  if (base === 0) {
    if (prefixBase) return { base: prefixBase, digits: s.slice(2) };
    if (s.length > 1 && s[0] === "0" && /[^0]/.test(s))
      return { base: -1, digits: s };
    return { base: 10, digits: s };
  }
  if (prefixBase === base) return { base, digits: s.slice(2) };
  return { base, digits: s };
}

export function parseInt(orig: string, baseArg: number): number | bigint {
  let s = orig;
  let neg = false;
  if (s.startsWith("+") || s.startsWith("-")) {
    neg = s.startsWith("-");
    s = s.slice(1);
  }
  const { base, digits } = basePrefix(s, baseArg);
  const bad = (): never =>
    fail(`invalid literal with base ${baseArg}: ${orig}`);
  if (base < 0 || digits === "") bad();
  let n = 0n;
  const b = BigInt(base);
  for (const ch of digits.toLowerCase()) {
    const d = INT_DIGITS.indexOf(ch);
    if (d < 0 || d >= base) bad();
    n = n * b + BigInt(d);
  }
  return normInt(neg ? -n : n);
}

// eslint-disable-next-line complexity -- one branch per accepted argument type
function intBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, baseV] = unpackArgs(args, kwargs, ["x", "base?"]);
  const v = x ?? null;
  if (baseV !== undefined) {
    if (typeof v !== "string")
      fail("can't convert non-string with explicit base");
    const base = wantInt(baseV, "base");
    if (base !== 0 && (base < 2 || base > 36))
      fail("base must be an integer >= 2 && <= 36");
    return parseInt(v, base);
  }
  if (typeof v === "boolean") return v ? 1 : 0;
  if (isInt(v)) return v;
  if (v instanceof Float) return floatToInt(v.v);
  if (typeof v === "string") return parseInt(v, 10);
  return fail(`cannot convert ${typeName(v)} to int`);
}

const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

// eslint-disable-next-line complexity -- one branch per accepted argument type
function floatBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 0, 1);
  const v = args[0];
  if (v === undefined) return new Float(0);
  if (v instanceof Float) return v;
  if (typeof v === "boolean") return new Float(v ? 1 : 0);
  if (isInt(v)) return new Float(intToFloat(v));
  if (typeof v !== "string")
    return fail(`got ${typeName(v)}, want number or string`);
  const lower = v.toLowerCase().replace(/^[+-]/, "");
  const sign = v.startsWith("-") ? -1 : 1;
  if (lower === "inf" || lower === "infinity")
    return new Float(sign * Infinity);
  if (lower === "nan") return new Float(NaN);
  if (!FLOAT_RE.test(v)) fail(`invalid float literal: ${v}`);
  const f = Number(v);
  if (!Number.isFinite(f)) fail("floating-point number too large");
  return new Float(f);
}

function rangeBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 3);
  const names = args.length === 1 ? ["stop"] : ["start", "stop", "step"];
  const nums = args.map((a, i) => {
    const name = names[i] ?? "step";
    if (!isInt(a)) fail(`for parameter ${name}: got ${typeName(a)}, want int`);
    if (a < -2147483648 || a > 2147483647)
      fail(
        `for parameter ${name}: ${a} out of range (want value in signed 32-bit range)`,
      );
    return Number(a);
  });
  const [start, stop, step] =
    nums.length === 1
      ? [0, nums[0] ?? 0, 1]
      : [nums[0] ?? 0, nums[1] ?? 0, nums[2] ?? 1];
  if (step === 0) fail("step argument must not be zero");
  return new Range(start, stop, step);
}

function enumerateBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [it, start] = unpackArgs(args, kwargs, ["iterable", "start?"]);
  const s = start === undefined ? 0 : wantInt(start, "start");
  const xs = ops.toArray(it ?? null);
  return new List(xs.map((x, i) => mkTuple([s + i, x])));
}

function zipBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 0, Infinity);
  const cols = args.map((a, i) => {
    if (!ops.isIterable(a))
      fail(`argument #${i + 1} is not iterable: ${typeName(a)}`);
    return ops.toArray(a);
  });
  const n = cols.length === 0 ? 0 : Math.min(...cols.map((c) => c.length));
  const out: Value[] = [];
  for (let i = 0; i < n; i++) out.push(mkTuple(cols.map((c) => c[i] ?? null)));
  return new List(out);
}

function chrBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const v = args[0] ?? null;
  if (!isInt(v)) fail(`got ${typeName(v)}, want int`);
  if (v < 0) fail(`Unicode code point ${v} out of range (<0)`);
  if (v > 0x10ffff) fail(`Unicode code point ${v} out of range (>0x10FFFF)`);
  const n = Number(v);
  return n >= 0xd800 && n <= 0xdfff ? "\ufffd" : String.fromCodePoint(n);
}

function ordBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const v = args[0] ?? null;
  if (v instanceof Bytes) {
    if (v.data.length !== 1) fail(`bytes has length ${v.data.length}, want 1`);
    return v.data.charCodeAt(0);
  }
  if (typeof v !== "string") return fail(`got ${typeName(v)}, want string`);
  const cps = [...v];
  if (cps.length !== 1)
    fail(`string encodes ${cps.length} Unicode code points, want 1`);
  return v.codePointAt(0) ?? 0;
}

function bytesBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const v = args[0] ?? null;
  if (typeof v === "string") return bytesFromUtf8(v);
  if (v instanceof Bytes) return v;
  if (!ops.isIterable(v))
    fail(`want string, bytes, or iterable of ints, got ${typeName(v)}`);
  const out = ops.toArray(v).map((x) => {
    if (!isInt(x) || x < 0 || x > 255)
      fail(
        `at index: ${repr(x)} out of range (want value in unsigned 8-bit range)`,
      );
    return String.fromCharCode(Number(x));
  });
  return new Bytes(out.join(""));
}

function hashBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const v = args[0] ?? null;
  const s =
    typeof v === "string"
      ? v
      : v instanceof Bytes
        ? v.data
        : fail(`got ${typeName(v)}, want string or bytes`);
  // Java's String.hashCode, as starlark-java; equal strings hash equally.
  let h = 0;
  for (let i = 0; i < s.length; i++)
    h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function one(fn: (v: Value) => Value): BuiltinFn {
  return (_t, args, kwargs) => {
    unpackPositional(args, kwargs, 1, 1);
    return fn(args[0] ?? null);
  };
}

function printBuiltin(thread: Thread, args: Value[], kwargs: Kwargs): Value {
  const [sep] = unpackArgs([], kwargs, ["sep?"]);
  thread.emitPrint(args.map(str).join(optString(sep, "sep", " ")));
  return null;
}

function failBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [sep] = unpackArgs([], kwargs, ["sep?"]);
  throw new StarlarkError(args.map(str).join(optString(sep, "sep", " ")));
}

function getattrBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 2, 3);
  const name = wantString(args[1] ?? null, "name");
  const x = args[0] ?? null;
  if (args.length === 3 && !ops.hasAttr(x, name)) return args[2] ?? null;
  return ops.getAttr(x, name);
}

function lenBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const n = ops.len(args[0] ?? null);
  if (n === undefined)
    fail(`value of type ${typeName(args[0] ?? null)} has no len`);
  return n;
}

function absBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  unpackPositional(args, kwargs, 1, 1);
  const v = args[0] ?? null;
  if (isInt(v)) return intAbs(v);
  if (v instanceof Float) return new Float(Math.abs(v.v));
  return fail(`got ${typeName(v)}, want int or float`);
}

function collection(make: (xs: Value[]) => Value): BuiltinFn {
  return (_t, args, kwargs) => {
    unpackPositional(args, kwargs, 0, 1);
    const v = args[0];
    if (v === undefined) return make([]);
    if (!ops.isIterable(v)) fail(`got ${typeName(v)}, want iterable`);
    return make(ops.toArray(v));
  };
}

function dictBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const d = new Dict();
  const seen = new Set<string>();
  for (const [k] of kwargs) {
    if (seen.has(k)) fail(`duplicate keyword arg: ${repr(k)}`);
    seen.add(k);
  }
  updateDict(d, args, kwargs);
  return d;
}

function anyAll(isAll: boolean): BuiltinFn {
  return (_t, args, kwargs) => {
    unpackPositional(args, kwargs, 1, 1);
    const it = ops.mustIterate(args[0] ?? null);
    try {
      for (let v = it.next(); v !== undefined; v = it.next())
        if (truth(v) !== isAll) return !isAll;
    } finally {
      it.done();
    }
    return isAll;
  };
}

const defs: Record<string, BuiltinFn> = {
  abs: absBuiltin,
  all: anyAll(true),
  any: anyAll(false),
  bool: (_t, args, kwargs) => {
    unpackPositional(args, kwargs, 0, 1);
    return args.length > 0 && truth(args[0] ?? null);
  },
  bytes: bytesBuiltin,
  chr: chrBuiltin,
  dict: dictBuiltin,
  dir: one((x) => new List(ops.attrNames(x))),
  enumerate: enumerateBuiltin,
  fail: failBuiltin,
  float: floatBuiltin,
  getattr: getattrBuiltin,
  hasattr: (_t, args, kwargs) => {
    unpackPositional(args, kwargs, 2, 2);
    return ops.hasAttr(args[0] ?? null, wantString(args[1] ?? null, "name"));
  },
  hash: hashBuiltin,
  int: intBuiltin,
  len: lenBuiltin,
  list: collection((xs) => new List(xs)),
  max: minmax("max"),
  min: minmax("min"),
  ord: ordBuiltin,
  print: printBuiltin,
  range: rangeBuiltin,
  repr: one((x) => repr(x)),
  reversed: collection((xs) => new List(xs.reverse())),
  set: collection((xs) => {
    const s = new StarSet();
    for (const x of xs) s.add(x);
    return s;
  }),
  sorted,
  str: one((x) => str(x)),
  tuple: collection((xs) => mkTuple(xs)),
  type: one((x) => typeName(x)),
  zip: zipBuiltin,
};

export const UNIVERSE: ReadonlyMap<string, Value> = new Map<string, Value>([
  ["None", null],
  ["True", true],
  ["False", false],
  ...Object.entries(defs).map(([name, fn]): [string, Value] => [
    name,
    new Builtin(name, fn),
  ]),
]);
