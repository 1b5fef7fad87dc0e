// Integer and float arithmetic.
//
// Ints are JS numbers while they are safe integers and bigints beyond (normalised back by
// normInt), so the common case is plain float arithmetic with one range check and every
// result is exact. Mixed int/float operations convert the int exactly or fail with
// starlark-go's "int too large to convert to float". Division and modulo floor towards
// negative infinity, as in Starlark.

import { fail } from "./errors.js";
import { Float, isInt, normInt, type Value } from "./value.js";

export type Int = number | bigint;

export function big(x: Int): bigint {
  return typeof x === "bigint" ? x : BigInt(x);
}

export function intAdd(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a + b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(big(a) + big(b));
}

export function intSub(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a - b;
    if (Number.isSafeInteger(r)) return r;
  }
  return normInt(big(a) - big(b));
}

export function intMul(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    const r = a * b;
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r;
  }
  return normInt(big(a) * big(b));
}

export function intFloorDiv(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) fail("floored division by zero");
    const r = a % b;
    let q = (a - r) / b;
    if (r !== 0 && r < 0 !== b < 0) q -= 1;
    return q === 0 ? 0 : q;
  }
  const x = big(a);
  const y = big(b);
  if (y === 0n) fail("floored division by zero");
  let q = x / y;
  if (x % y !== 0n && x < 0n !== y < 0n) q -= 1n;
  return normInt(q);
}

export function intMod(a: Int, b: Int): Int {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) fail("integer modulo by zero");
    let r = a % b;
    if (r !== 0 && r < 0 !== b < 0) r += b;
    return r === 0 ? 0 : r;
  }
  const x = big(a);
  const y = big(b);
  if (y === 0n) fail("integer modulo by zero");
  let r = x % y;
  if (r !== 0n && r < 0n !== y < 0n) r += y;
  return normInt(r);
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

function bothI32(a: Int, b: Int): boolean {
  return (
    typeof a === "number" &&
    typeof b === "number" &&
    a >= I32_MIN &&
    a <= I32_MAX &&
    b >= I32_MIN &&
    b <= I32_MAX
  );
}

export function intAnd(a: Int, b: Int): Int {
  return bothI32(a, b)
    ? (a as number) & (b as number)
    : normInt(big(a) & big(b));
}
export function intOr(a: Int, b: Int): Int {
  return bothI32(a, b)
    ? (a as number) | (b as number)
    : normInt(big(a) | big(b));
}
export function intXor(a: Int, b: Int): Int {
  return bothI32(a, b)
    ? (a as number) ^ (b as number)
    : normInt(big(a) ^ big(b));
}

function shiftCount(b: Int): number {
  if (b < 0) fail("negative shift count");
  if (b >= 512) fail("shift count too large");
  return Number(b);
}

export function intShl(a: Int, b: Int): Int {
  const n = shiftCount(b);
  if (typeof a === "number" && n < 22 && Math.abs(a) < 2 ** 31)
    return a * 2 ** n;
  return normInt(big(a) << BigInt(n));
}

export function intShr(a: Int, b: Int): Int {
  const n = shiftCount(b);
  if (typeof a === "number" && a >= I32_MIN && a <= I32_MAX)
    return n >= 32 ? (a < 0 ? -1 : 0) : a >> n;
  return normInt(big(a) >> BigInt(n));
}

export function intNeg(a: Int): Int {
  return typeof a === "number" ? (a === 0 ? 0 : -a) : normInt(-a);
}

export function intToFloat(a: Int): number {
  if (typeof a === "number") return a;
  const f = Number(a);
  if (!Number.isFinite(f)) fail("int too large to convert to float");
  return f;
}

// The number value of an int or float operand, or undefined for other types.
export function numberOf(v: Value): number | undefined {
  if (typeof v === "number") return v;
  if (v instanceof Float) return v.v;
  if (typeof v === "bigint") return intToFloat(v);
  return undefined;
}

export function floatToInt(f: number): Int {
  if (Number.isNaN(f)) fail("cannot convert float NaN to integer");
  if (!Number.isFinite(f)) fail("cannot convert float infinity to integer");
  const t = Math.trunc(f);
  return Number.isSafeInteger(t) ? (t === 0 ? 0 : t) : normInt(BigInt(t));
}

// Float floor division and modulo with Starlark's sign rules.
export function floatFloorDiv(x: number, y: number): number {
  if (y === 0) fail("floored division by zero");
  return Math.floor(x / y);
}

export function floatMod(x: number, y: number): number {
  if (y === 0) fail("floating-point modulo by zero");
  let r = x % y;
  if (r !== 0 && r < 0 !== y < 0) r += y;
  return r;
}

// Total order on numbers used by comparisons and sort: NaN equals itself and is greater
// than every other value, as in starlark-go.
export function cmpFloat(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  const xn = Number.isNaN(x);
  const yn = Number.isNaN(y);
  return xn && yn ? 0 : xn ? 1 : -1;
}

// Exact comparison of an int with a float (the int may be beyond float precision).
export function cmpIntFloat(a: Int, f: number): number {
  if (Number.isNaN(f)) return -1;
  if (typeof a === "number") return cmpFloat(a, f);
  if (f === Infinity) return -1;
  if (f === -Infinity) return 1;
  // JS compares bigint with number by exact mathematical value.
  return a < f ? -1 : a > f ? 1 : 0;
}

export function cmpNumbers(a: Value, b: Value): number {
  if (isInt(a)) {
    if (isInt(b)) return a < b ? -1 : a > b ? 1 : 0;
    return cmpIntFloat(a, (b as Float).v);
  }
  const x = (a as Float).v;
  if (isInt(b)) return -cmpIntFloat(b, x);
  return cmpFloat(x, (b as Float).v);
}

export function isNumber(v: Value): boolean {
  return typeof v === "number" || typeof v === "bigint" || v instanceof Float;
}

export function intAbs(a: Int): Int {
  return a < 0 ? intNeg(a) : a;
}
