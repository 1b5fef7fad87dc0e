// The string % operator, after starlark-go's interpolate: %s %r %d %i %o %x %X %c %e %E %f
// %F %g %G and %%, with %(key)s lookups when the operand is a dict.
//
// Extension: Python's flags, width and precision ("%-8s", "%05d", "%.2f"), which starlark-go
// rejects but model-written scripts use constantly; without them the output is starlark-go's.

/* eslint-disable complexity -- one branch per conversion character and flag, as starlark-go's interpolate */

import { chargeString } from "./alloc.js";
import { Dict } from "./collections.js";
import { fail } from "./errors.js";
import { formatE, formatF, formatG } from "./float-format.js";
import { floatToInt, intToFloat } from "./numeric.js";
import {
  Float,
  isInt,
  repr,
  str,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";

function intArg(c: string, v: Value): number | bigint {
  if (typeof v === "boolean")
    fail(`%${c} format requires integer: cannot convert bool to int`);
  if (isInt(v)) return v;
  if (v instanceof Float) return floatToInt(v.v);
  return fail(`%${c} format requires integer: ${typeName(v)}`);
}

function floatArg(c: string, v: Value): number {
  if (v instanceof Float) return v.v;
  if (isInt(v)) return intToFloat(v);
  return fail(`%${c} format requires float, not ${typeName(v)}`);
}

function charArg(v: Value): string {
  if (typeof v === "string") {
    if ([...v].length !== 1)
      fail(`%c format requires a single-character string`);
    return v;
  }
  if (isInt(v)) {
    const n = Number(v);
    if (n < 0 || n > 0x10ffff)
      fail(`%c format requires a valid Unicode code point, got ${v}`);
    // Surrogate code points are not characters; like Go, they become U+FFFD.
    return n >= 0xd800 && n <= 0xdfff ? "\ufffd" : String.fromCodePoint(n);
  }
  return fail(
    `%c format requires int or single-character string, not ${typeName(v)}`,
  );
}

interface Flags {
  readonly flags: string;
  readonly width: number;
  readonly precision: number | undefined;
}

const SPEC = /^([-+ 0#]*)(\d*)(?:\.(\d*))?/;

function readSpec(format: string, i: number): { spec: Flags; next: number } {
  const m = SPEC.exec(format.slice(i));
  const text = m?.[0] ?? "";
  const precision = m?.[3] === undefined ? undefined : Number(m[3] || "0");
  return {
    spec: { flags: m?.[1] ?? "", width: Number(m?.[2] || "0"), precision },
    next: i + text.length,
  };
}

function withPrecision(c: string, v: Value, p: number): string {
  switch (c) {
    case "e":
    case "E": {
      const s = formatE(floatArg(c, v), p);
      return c === "E" ? s.toUpperCase() : s;
    }
    case "f":
    case "F":
      return formatF(floatArg(c, v), p);
    case "s":
    case "r":
      return convert(c, v).slice(0, p);
    default:
      return convert(c, v);
  }
}

function applyFlags(c: string, v: Value, spec: Flags): string {
  let s =
    spec.precision === undefined
      ? convert(c, v)
      : withPrecision(c, v, spec.precision);
  const numeric = "diouxXeEfFgG".includes(c);
  if (numeric && !s.startsWith("-")) {
    if (spec.flags.includes("+")) s = `+${s}`;
    else if (spec.flags.includes(" ")) s = ` ${s}`;
  }
  if (s.length >= spec.width) return s;
  if (spec.flags.includes("-")) return s.padEnd(spec.width);
  if (numeric && spec.flags.includes("0")) {
    const sign = /^[-+ ]/.test(s) ? (s[0] ?? "") : "";
    return sign + s.slice(sign.length).padStart(spec.width - sign.length, "0");
  }
  return s.padStart(spec.width);
}

function convert(c: string, v: Value): string {
  switch (c) {
    case "s":
      return str(v);
    case "r":
      return repr(v);
    case "d":
    case "i":
      return String(intArg(c, v));
    case "o":
      return intArg(c, v).toString(8);
    case "x":
      return intArg(c, v).toString(16);
    case "X":
      return intArg(c, v).toString(16).toUpperCase();
    case "c":
      return charArg(v);
    case "e":
    case "E": {
      const s = formatE(floatArg(c, v));
      return c === "E" ? s.toUpperCase() : s;
    }
    case "f":
    case "F": {
      const s = formatF(floatArg(c, v));
      return c === "F" ? s.toUpperCase() : s;
    }
    case "g":
    case "G": {
      const s = formatG(floatArg(c, v));
      return c === "G" ? s.toUpperCase() : s;
    }
    default:
      return fail(`unsupported format character '${c}'`);
  }
}

export function percentFormat(format: string, y: Value): string {
  const args: readonly Value[] = Array.isArray(y) ? (y as Tuple) : [y];
  let argi = 0;
  let out = "";
  let i = 0;
  while (i < format.length) {
    const pct = format.indexOf("%", i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    if (i >= format.length) fail("incomplete format");
    let arg: Value;
    if (format[i] === "(") {
      const close = format.indexOf(")", i);
      if (close < 0) fail("incomplete format key");
      if (!(y instanceof Dict)) fail("format requires a mapping");
      const key = format.slice(i + 1, close);
      const v = y.get(key);
      if (v === undefined) fail(`key ${repr(key)} not in dict`);
      arg = v;
      i = close + 1;
      if (i >= format.length) fail("incomplete format");
    } else {
      if (format[i] === "%") {
        out += "%";
        i++;
        continue;
      }
      if (argi >= args.length) fail("not enough arguments for format string");
      arg = args[argi++] ?? null;
    }
    const { spec, next } = readSpec(format, i);
    i = next;
    if (i >= format.length) fail("incomplete format");
    const c = format[i] ?? "";
    out +=
      spec.flags === "" && spec.width === 0 && spec.precision === undefined
        ? convert(c, arg)
        : applyFlags(c, arg, spec);
    i++;
    chargeString(out.length, 0);
  }
  if (argi < args.length && !(y instanceof Dict))
    fail("too many arguments for format string");
  chargeString(out.length);
  return out;
}
