// Operators of the language: arithmetic, comparison, membership, indexing, slicing,
// iteration, len and attribute access, with starlark-go's error wording.
//
// Each binary operator is its own function with the int fast path first, because the
// interpreter calls them directly from its dispatch loop. Host objects take part through
// StarObject's protocol hooks (binaryOp, index, contains, iterate, len, attr).

/* eslint-disable complexity -- each operator dispatches on its operand types, one branch per type as starlark-go's Binary and Compare do */

import { chargeElems, chargeString, chargeWork } from "./alloc.js";
import { Builtin } from "./builtin.js";
import {
  ArrayIter,
  Bytes,
  Dict,
  HashTable,
  List,
  Range,
  StarSet,
} from "./collections.js";
import { fail, StarlarkError } from "./errors.js";
import { methodsOf } from "./methods.js";
import {
  cmpFloat,
  cmpIntFloat,
  cmpNumbers,
  floatFloorDiv,
  floatMod,
  type Int,
  intAdd,
  intAnd,
  intFloorDiv,
  intMod,
  intMul,
  intNeg,
  intOr,
  intShl,
  intShr,
  intSub,
  intToFloat,
  intXor,
  isNumber,
  numberOf,
} from "./numeric.js";
import { percentFormat } from "./percent.js";
import { didYouMean } from "./spell.js";
import {
  Float,
  isInt,
  type Iter,
  mkTuple,
  repr,
  StarObject,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";

const MAX_DEPTH = 100;

// Hints for Python habits that Starlark lacks, appended to the error they cause.
const ATTR_HINTS: Readonly<Record<string, string>> = {
  "list.sort":
    "Starlark lists have no sort method; use sorted(x), which returns a new list",
  "list.copy": "use list(x) or x[:]",
  "list.count": "use len([e for e in x if e == v])",
  "dict.has_key": "use `k in d`",
  "dict.iteritems": "use d.items()",
  "dict.iterkeys": "use d.keys()",
  "dict.itervalues": "use d.values()",
  "dict.copy": "use dict(d)",
  "string.encode":
    "Starlark strings are text; bytes(s) gives their UTF-8 bytes",
  "string.decode": "Starlark strings are already text",
  "string.isnumeric": "use s.isdigit()",
};

function attrHint(x: Value, name: string): string {
  const h = ATTR_HINTS[`${typeName(x)}.${name}`];
  return h === undefined ? "" : ` (hint: ${h})`;
}

function binaryHint(op: string, x: Value, y: Value): string {
  const tx = typeName(x);
  const ty = typeName(y);
  if (
    op === "+" &&
    ((tx === "string" && ty !== "string") ||
      (ty === "string" && tx !== "string"))
  ) {
    return ' (hint: convert with str(x), or format with "%s" % x)';
  }
  return "";
}

function unknownBinary(op: string, x: Value, y: Value): never {
  return fail(
    `unknown binary op: ${typeName(x)} ${op} ${typeName(y)}${binaryHint(op, x, y)}`,
  );
}

function hostBinary(op: string, x: Value, y: Value): Value {
  if (x instanceof StarObject) {
    const r = x.binaryOp(op, y, false);
    if (r !== undefined) return r;
  }
  if (y instanceof StarObject) {
    const r = y.binaryOp(op, x, true);
    if (r !== undefined) return r;
  }
  return unknownBinary(op, x, y);
}

// Applies a float operation when both operands are numbers and at least one is a float.
function floatOp(
  x: Value,
  y: Value,
  f: (a: number, b: number) => number,
): Value | undefined {
  if (!(x instanceof Float || y instanceof Float)) return undefined;
  const a = numberOf(x);
  const b = numberOf(y);
  if (a === undefined || b === undefined) return undefined;
  return new Float(f(a, b));
}

export function add(x: Value, y: Value): Value {
  if (typeof x === "number" && typeof y === "number") {
    const r = x + y;
    if (Number.isSafeInteger(r)) return r;
  }
  if (typeof x === "string" && typeof y === "string") {
    chargeString(x.length + y.length, y.length);
    return x + y;
  }
  if (isInt(x) && isInt(y)) return intAdd(x, y);
  const f = floatOp(x, y, (a, b) => a + b);
  if (f !== undefined) return f;
  if (x instanceof List && y instanceof List) {
    chargeElems(x.elems.length + y.elems.length);
    return new List(x.elems.concat(y.elems));
  }
  if (Array.isArray(x) && Array.isArray(y)) {
    chargeElems(x.length + y.length);
    return mkTuple((x as Tuple).concat(y as Tuple));
  }
  if (x instanceof Bytes && y instanceof Bytes) {
    chargeString(x.data.length + y.data.length, y.data.length);
    return new Bytes(x.data + y.data);
  }
  return hostBinary("+", x, y);
}

export function sub(x: Value, y: Value): Value {
  if (typeof x === "number" && typeof y === "number") {
    const r = x - y;
    if (Number.isSafeInteger(r)) return r;
  }
  if (isInt(x) && isInt(y)) return intSub(x, y);
  const f = floatOp(x, y, (a, b) => a - b);
  if (f !== undefined) return f;
  if (x instanceof StarSet && y instanceof StarSet) {
    const out = new StarSet();
    for (const e of x.map.values()) if (!y.has(e.k)) out.add(e.k);
    return out;
  }
  return hostBinary("-", x, y);
}

const MAX_REPEAT_ELEMS = 2 ** 30;

function repeatCount(n: Int, len: number): number {
  if (typeof n === "bigint" || n > 2147483647)
    fail(`repeat count ${n} too large`);
  if (n <= 0) return 0;
  if (len > 0 && len > MAX_REPEAT_ELEMS / n)
    fail(`excessive repeat (${len} * ${n} elements)`);
  return n;
}

function repeat(seq: Value, n: Int): Value | undefined {
  if (typeof seq === "string") {
    const k = repeatCount(n, seq.length);
    chargeString(seq.length * k);
    return seq.repeat(k);
  }
  if (seq instanceof List || Array.isArray(seq)) {
    const elems = seq instanceof List ? seq.elems : (seq as Tuple);
    const k = repeatCount(n, elems.length);
    chargeElems(elems.length * k);
    const out: Value[] = [];
    for (let i = 0; i < k; i++) for (const e of elems) out.push(e);
    return seq instanceof List ? new List(out) : mkTuple(out);
  }
  if (seq instanceof Bytes) {
    const k = repeatCount(n, seq.data.length);
    chargeString(seq.data.length * k);
    return new Bytes(seq.data.repeat(k));
  }
  return undefined;
}

export function mul(x: Value, y: Value): Value {
  if (typeof x === "number" && typeof y === "number") {
    const r = x * y;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  if (isInt(x) && isInt(y)) return intMul(x, y);
  const f = floatOp(x, y, (a, b) => a * b);
  if (f !== undefined) return f;
  const r = isInt(y) ? repeat(x, y) : isInt(x) ? repeat(y, x) : undefined;
  return r ?? hostBinary("*", x, y);
}

export function div(x: Value, y: Value): Value {
  if (isNumber(x) && isNumber(y)) {
    const a = isInt(x) ? intToFloat(x) : (x as Float).v;
    const b = isInt(y) ? intToFloat(y) : (y as Float).v;
    if (b === 0) fail("floating-point division by zero");
    return new Float(a / b);
  }
  return hostBinary("/", x, y);
}

export function floorDiv(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intFloorDiv(x, y);
  const f = floatOp(x, y, floatFloorDiv);
  return f ?? hostBinary("//", x, y);
}

export function mod(x: Value, y: Value): Value {
  if (typeof x === "number" && typeof y === "number" && y > 0 && x >= 0)
    return x % y;
  if (isInt(x) && isInt(y)) return intMod(x, y);
  if (typeof x === "string") return percentFormat(x, y);
  const f = floatOp(x, y, floatMod);
  return f ?? hostBinary("%", x, y);
}

function setOp(
  x: StarSet,
  y: StarSet,
  keep: (inX: boolean, inY: boolean) => boolean,
): StarSet {
  const out = new StarSet();
  for (const e of x.map.values()) if (keep(true, y.has(e.k))) out.add(e.k);
  for (const e of y.map.values())
    if (!x.has(e.k) && keep(false, true)) out.add(e.k);
  return out;
}

export function bitOr(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intOr(x, y);
  if (x instanceof StarSet && y instanceof StarSet)
    return setOp(x, y, () => true);
  if (x instanceof Dict && y instanceof Dict) {
    const out = new Dict();
    for (const e of x.map.values()) out.insert(e.k, e.v);
    for (const e of y.map.values()) out.insert(e.k, e.v);
    return out;
  }
  return hostBinary("|", x, y);
}

export function bitAnd(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intAnd(x, y);
  if (x instanceof StarSet && y instanceof StarSet)
    return setOp(x, y, (a, b) => a && b);
  return hostBinary("&", x, y);
}

export function bitXor(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intXor(x, y);
  if (x instanceof StarSet && y instanceof StarSet)
    return setOp(x, y, (a, b) => a !== b);
  return hostBinary("^", x, y);
}

export function shl(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intShl(x, y);
  return hostBinary("<<", x, y);
}

export function shr(x: Value, y: Value): Value {
  if (isInt(x) && isInt(y)) return intShr(x, y);
  return hostBinary(">>", x, y);
}

export function neg(x: Value): Value {
  if (isInt(x)) return intNeg(x);
  if (x instanceof Float) return new Float(-x.v);
  return fail(`unknown unary op: - ${typeName(x)}`);
}

export function pos(x: Value): Value {
  if (isNumber(x)) return x;
  return fail(`unknown unary op: + ${typeName(x)}`);
}

export function invert(x: Value): Value {
  if (typeof x === "number") {
    const r = -x - 1;
    return Number.isSafeInteger(r) ? r : intNeg(intAdd(x, 1));
  }
  if (typeof x === "bigint") return intNeg(intAdd(x, 1));
  return fail(`unknown unary op: ~ ${typeName(x)}`);
}

// ---- equality and ordering ----

function seqEquals(
  a: readonly Value[],
  b: readonly Value[],
  depth: number,
): boolean {
  if (a.length !== b.length) return false;
  chargeWork(a.length);
  for (let i = 0; i < a.length; i++)
    if (!equalsDepth(a[i] ?? null, b[i] ?? null, depth + 1)) return false;
  return true;
}

function dictEquals(a: Dict, b: Dict, depth: number): boolean {
  if (a.size !== b.size) return false;
  for (const e of a.map.values()) {
    const o = b.lookup(e.k);
    if (o === undefined || !equalsDepth(e.v, o.v, depth + 1)) return false;
  }
  return true;
}

function setEquals(a: StarSet, b: StarSet): boolean {
  if (a.size !== b.size) return false;
  for (const e of a.map.values()) if (!b.has(e.k)) return false;
  return true;
}

function objectEquals(a: StarObject, b: Value, depth: number): boolean {
  if (a instanceof Float) {
    if (b instanceof Float) return cmpFloat(a.v, b.v) === 0;
    return isInt(b) && cmpIntFloat(b, a.v) === 0;
  }
  if (a instanceof List)
    return b instanceof List && seqEquals(a.elems, b.elems, depth);
  if (a instanceof Dict) return b instanceof Dict && dictEquals(a, b, depth);
  if (a instanceof StarSet) return b instanceof StarSet && setEquals(a, b);
  return a.equals(b, depth);
}

export function equalsDepth(a: Value, b: Value, depth: number): boolean {
  if (depth > MAX_DEPTH) fail("comparison exceeded maximum recursion depth");
  if (typeof a !== "object" || a === null) {
    if (a === b) return true;
    if (b instanceof Float && isInt(a)) return cmpIntFloat(a, b.v) === 0;
    return false;
  }
  if (Array.isArray(a))
    return Array.isArray(b) && seqEquals(a as Tuple, b as Tuple, depth);
  return objectEquals(a as StarObject, b, depth);
}

export function equals(a: Value, b: Value): boolean {
  if (a === b && typeof a !== "object") return true;
  return equalsDepth(a, b, 0);
}

function seqCompare(
  op: string,
  a: readonly Value[],
  b: readonly Value[],
  depth: number,
): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (!equalsDepth(x, y, depth + 1)) return compareDepth(op, x, y, depth + 1);
  }
  return a.length - b.length;
}

// Three-way comparison for the ordered operators; fails for unordered types.
export function compareDepth(
  op: string,
  a: Value,
  b: Value,
  depth: number,
): number {
  if (depth > MAX_DEPTH) fail("comparison exceeded maximum recursion depth");
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string")
    return a < b ? -1 : a > b ? 1 : 0;
  if (isNumber(a) && isNumber(b)) return cmpNumbers(a, b);
  if (typeof a === "boolean" && typeof b === "boolean")
    return Number(a) - Number(b);
  if (Array.isArray(a) && Array.isArray(b))
    return seqCompare(op, a as Tuple, b as Tuple, depth);
  if (a instanceof List && b instanceof List)
    return seqCompare(op, a.elems, b.elems, depth);
  if (a instanceof Bytes && b instanceof Bytes)
    return a.data < b.data ? -1 : a.data > b.data ? 1 : 0;
  return fail(`${typeName(a)} ${op} ${typeName(b)} not implemented`);
}

export function compare(op: string, a: Value, b: Value): number {
  return compareDepth(op, a, b, 0);
}

// Sets are partially ordered by inclusion: <= is subset, < proper subset.
function setCompare(op: string, a: StarSet, b: StarSet): boolean {
  const sub = (x: StarSet, y: StarSet): boolean =>
    x.size <= y.size && x.keys().every((k) => y.has(k));
  switch (op) {
    case "<=":
      return sub(a, b);
    case "<":
      return a.size < b.size && sub(a, b);
    case ">=":
      return sub(b, a);
    default:
      return b.size < a.size && sub(b, a);
  }
}

export function lt(a: Value, b: Value): boolean {
  if (typeof a === "number" && typeof b === "number") return a < b;
  if (a instanceof StarSet && b instanceof StarSet)
    return setCompare("<", a, b);
  return compare("<", a, b) < 0;
}
export function le(a: Value, b: Value): boolean {
  if (typeof a === "number" && typeof b === "number") return a <= b;
  if (a instanceof StarSet && b instanceof StarSet)
    return setCompare("<=", a, b);
  return compare("<=", a, b) <= 0;
}
export function gt(a: Value, b: Value): boolean {
  if (typeof a === "number" && typeof b === "number") return a > b;
  if (a instanceof StarSet && b instanceof StarSet)
    return setCompare(">", a, b);
  return compare(">", a, b) > 0;
}
export function ge(a: Value, b: Value): boolean {
  if (typeof a === "number" && typeof b === "number") return a >= b;
  if (a instanceof StarSet && b instanceof StarSet)
    return setCompare(">=", a, b);
  return compare(">=", a, b) >= 0;
}

// ---- membership ----

export function contains(container: Value, x: Value): boolean {
  if (typeof container === "string") {
    if (typeof x !== "string")
      fail(`'in <string>' requires string as left operand, not ${typeName(x)}`);
    return container.includes(x);
  }
  if (Array.isArray(container)) {
    chargeWork(container.length);
    return (container as Tuple).some((e) => equals(e, x));
  }
  if (container instanceof List) {
    chargeWork(container.elems.length);
    return container.elems.some((e) => equals(e, x));
  }
  if (container instanceof StarSet) return container.has(x);
  if (container instanceof Dict) {
    // An unhashable value is simply not a key (starlark-go: `[] not in {}` is True).
    try {
      return container.has(x);
    } catch {
      return false;
    }
  }
  if (container instanceof Range) return rangeContains(container, x);
  if (container instanceof Bytes) return bytesContains(container, x);
  if (container instanceof StarObject) {
    const r = container.contains(x);
    if (r !== undefined) return r;
  }
  return fail(`unknown binary op: ${typeName(x)} in ${typeName(container)}`);
}

function rangeContains(r: Range, x: Value): boolean {
  if (x instanceof Float && !Number.isInteger(x.v)) return false;
  if (!isInt(x) && !(x instanceof Float))
    fail(`'in <range>' requires integer as left operand, not ${typeName(x)}`);
  const n = x instanceof Float ? x.v : Number(x);
  if (r.size === 0) return false;
  const off = n - r.start;
  if (off % r.step !== 0) return false;
  const i = off / r.step;
  return i >= 0 && i < r.size;
}

function bytesContains(b: Bytes, x: Value): boolean {
  if (x instanceof Bytes) return b.data.includes(x.data);
  if (isInt(x)) {
    if (x < 0 || x > 255) fail(`int in bytes: ${x} out of range`);
    return b.data.includes(String.fromCharCode(Number(x)));
  }
  return fail(
    `'in bytes' requires bytes or int as left operand, not ${typeName(x)}`,
  );
}

// ---- len, iteration ----

export function len(x: Value): number | undefined {
  if (typeof x === "string") return x.length;
  if (Array.isArray(x)) return x.length;
  if (x instanceof List) return x.elems.length;
  if (x instanceof Dict || x instanceof StarSet) return x.size;
  if (x instanceof Range) return x.size;
  if (x instanceof Bytes) return x.data.length;
  if (x instanceof StarObject) return x.len();
  return undefined;
}

export function iterate(x: Value): Iter | undefined {
  if (x instanceof List) return x.iterate();
  if (Array.isArray(x)) return new ArrayIter(x as Tuple);
  if (x instanceof StarObject) return x.iterate();
  return undefined;
}

// Whether x can be iterated, without leaving an iteration open.
export function isIterable(x: Value): boolean {
  if (
    x instanceof List ||
    Array.isArray(x) ||
    x instanceof HashTable ||
    x instanceof Range
  )
    return true;
  if (!(x instanceof StarObject)) return false;
  const it = x.iterate();
  it?.done();
  return it !== undefined;
}

export function mustIterate(x: Value): Iter {
  const it = iterate(x);
  if (it !== undefined) return it;
  if (typeof x === "string")
    return fail(
      "string value is not iterable (hint: use s.elems() for its characters)",
    );
  return fail(`${typeName(x)} value is not iterable`);
}

// Collects the elements of an iterable, charging the allocation budget.
export function toArray(x: Value): Value[] {
  if (x instanceof List) {
    chargeWork(x.elems.length);
    return x.elems.slice();
  }
  if (Array.isArray(x)) {
    chargeWork(x.length);
    return (x as Tuple).slice();
  }
  // A range knows its length: refuse an oversized one before materialising anything.
  if (x instanceof Range) chargeElems(x.size, 0);
  const it = mustIterate(x);
  const out: Value[] = [];
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) {
      out.push(v);
      if ((out.length & 1023) === 0) {
        chargeElems(out.length, 1024);
        chargeWork(1024);
      }
    }
  } finally {
    it.done();
  }
  chargeElems(out.length, out.length & 1023);
  return out;
}

// ---- indexing and slicing ----

export function asIndex(v: Value, what: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v < 0 ? -(2 ** 53) : 2 ** 53;
  return fail(`${what}: got ${typeName(v)}, want int`);
}

function outOfRange(i: number, n: number, x: Value): never {
  if (n === 0) fail(`index ${i} out of range: empty ${typeName(x)}`);
  return fail(`${typeName(x)} index ${i} out of range [${-n}:${n - 1}]`);
}

function seqIndex(x: Value, n: number, i: Value): number {
  const orig = asIndex(i, `${typeName(x)} index`);
  const k = orig < 0 ? orig + n : orig;
  if (k < 0 || k >= n) outOfRange(orig, n, x);
  return k;
}

export function index(x: Value, i: Value): Value {
  if (x instanceof List) return x.elems[seqIndex(x, x.elems.length, i)] ?? null;
  if (Array.isArray(x)) return (x as Tuple)[seqIndex(x, x.length, i)] ?? null;
  if (x instanceof Dict) {
    const v = x.get(i);
    if (v === undefined) fail(`key ${repr(i)} not in dict`);
    return v;
  }
  if (typeof x === "string") return x[seqIndex(x, x.length, i)] ?? "";
  if (x instanceof Range) return x.at(seqIndex(x, x.size, i));
  if (x instanceof Bytes)
    return x.data.charCodeAt(seqIndex(x, x.data.length, i));
  if (x instanceof StarObject) {
    const r = x.index(i);
    if (r !== undefined) return r;
  }
  return fail(`unhandled index operation ${typeName(x)}[${typeName(i)}]`);
}

export function setIndex(x: Value, i: Value, v: Value): void {
  if (x instanceof List) {
    x.checkMutable("assign to element of");
    x.elems[seqIndex(x, x.elems.length, i)] = v;
    return;
  }
  if (x instanceof Dict) {
    x.insert(i, v);
    return;
  }
  fail(`${typeName(x)} value does not support item assignment`);
}

function sliceBound(v: Value, dflt: number, n: number, step: number): number {
  if (v === null) return dflt;
  let i = asIndex(v, "slice index");
  if (i < 0) {
    i += n;
    if (i < 0) i = step < 0 ? -1 : 0;
  } else if (i >= n) {
    i = step < 0 ? n - 1 : n;
  }
  return i;
}

// Python slice semantics: the indices selected by x[lo:hi:step] of a sequence of length n.
export function sliceIndices(
  n: number,
  lo: Value,
  hi: Value,
  stepV: Value,
): number[] {
  const step = stepV === null ? 1 : asIndex(stepV, "slice step");
  if (step === 0) fail("zero is not a valid slice step");
  const start = sliceBound(lo, step < 0 ? n - 1 : 0, n, step);
  const end = sliceBound(hi, step < 0 ? -1 : n, n, step);
  const out: number[] = [];
  if (step > 0) for (let i = start; i < end; i += step) out.push(i);
  else for (let i = start; i > end; i += step) out.push(i);
  return out;
}

function simpleSlice(
  lo: Value,
  hi: Value,
  step: Value,
  n: number,
): [number, number] | undefined {
  if (step !== null && step !== 1) return undefined;
  return [sliceBound(lo, 0, n, 1), sliceBound(hi, n, n, 1)];
}

export function slice(x: Value, lo: Value, hi: Value, step: Value): Value {
  if (typeof x === "string") {
    const s = simpleSlice(lo, hi, step, x.length);
    if (s) return s[0] < s[1] ? x.slice(s[0], s[1]) : "";
    return sliceIndices(x.length, lo, hi, step)
      .map((i) => x[i])
      .join("");
  }
  if (x instanceof List || Array.isArray(x)) {
    const elems = x instanceof List ? x.elems : (x as Tuple);
    const s = simpleSlice(lo, hi, step, elems.length);
    const picked = s
      ? elems.slice(s[0], Math.max(s[0], s[1]))
      : sliceIndices(elems.length, lo, hi, step).map((i) => elems[i] ?? null);
    return x instanceof List ? new List(picked) : mkTuple(picked);
  }
  if (x instanceof Range) return sliceRange(x, lo, hi, step);
  if (x instanceof Bytes) {
    return new Bytes(
      sliceIndices(x.data.length, lo, hi, step)
        .map((i) => x.data[i])
        .join(""),
    );
  }
  return fail(`invalid slice operand ${typeName(x)}`);
}

function sliceRange(r: Range, lo: Value, hi: Value, stepV: Value): Range {
  const step = stepV === null ? 1 : asIndex(stepV, "slice step");
  if (step === 0) fail("zero is not a valid slice step");
  const n = r.size;
  const start = sliceBound(lo, step < 0 ? n - 1 : 0, n, step);
  const end = sliceBound(hi, step < 0 ? -1 : n, n, step);
  return new Range(
    r.start + start * r.step,
    r.start + end * r.step,
    r.step * step,
  );
}

// ---- attributes ----

export function getAttr(x: Value, name: string): Value {
  const methods = methodsOf(x);
  const m = methods?.get(name);
  if (m !== undefined) return m.bind(x);
  if (x instanceof StarObject) {
    const v = x.attr(name);
    if (v !== undefined) return v;
  }
  const names = attrNames(x);
  return fail(
    `${typeName(x)} has no .${name} field or method${didYouMean(name, names)}${attrHint(x, name)}`,
  );
}

export function hasAttr(x: Value, name: string): boolean {
  if (methodsOf(x)?.has(name) === true) return true;
  return x instanceof StarObject && x.attr(name) !== undefined;
}

export function attrNames(x: Value): string[] {
  const names = [...(methodsOf(x)?.keys() ?? [])];
  if (x instanceof StarObject) names.push(...x.attrNames());
  return names.sort();
}

export function setField(x: Value, name: string, v: Value): void {
  if (x instanceof StarObject) {
    try {
      x.setField(name, v);
    } catch (e) {
      // A host's "no such field" error gets starlark-go's spelling suggestion.
      if (e instanceof StarlarkError && e.msg === `no .${name} field`)
        fail(e.msg + didYouMean(name, attrNames(x)));
      throw e;
    }
    return;
  }
  fail(`can't assign to .${name} field of ${typeName(x)}`);
}

export { Builtin };
