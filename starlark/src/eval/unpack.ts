// Argument unpacking for builtins, after starlark-go's UnpackArgs.
//
// A parameter spec is a list of names; a trailing "?" marks an optional parameter. Positional
// arguments fill parameters in order, keyword arguments by name. Messages omit the builtin's
// name: the call machinery prefixes every builtin error with "name: ", as starlark-go's
// builtins do.

import type { Kwargs } from "./builtin.js";
import { fail } from "./errors.js";
import { nearest } from "./spell.js";
import { Float, isInt, typeName, type Value } from "./value.js";

// eslint-disable-next-line complexity -- UnpackArgs' checks in starlark-go's order
export function unpackArgs(
  args: readonly Value[],
  kwargs: Kwargs,
  spec: readonly string[],
): (Value | undefined)[] {
  const names = spec.map((s) => (s.endsWith("?") ? s.slice(0, -1) : s));
  if (args.length > spec.length) {
    fail(`got ${args.length} arguments, want at most ${spec.length}`);
  }
  const out: (Value | undefined)[] = new Array<Value | undefined>(
    spec.length,
  ).fill(undefined);
  for (let i = 0; i < args.length; i++) out[i] = args[i];
  for (const [k, v] of kwargs) {
    const i = names.indexOf(k);
    if (i < 0) {
      const near = nearest(k, names);
      fail(
        `unexpected keyword argument ${k}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
      );
    }
    if (out[i] !== undefined) fail(`got multiple values for parameter ${k}`);
    out[i] = v;
  }
  for (let i = 0; i < spec.length; i++) {
    if (out[i] === undefined && !spec[i]?.endsWith("?"))
      fail(`missing argument for ${names[i]}`);
  }
  return out;
}

// Positional-only unpacking: exactly min..max arguments and no keywords.
export function unpackPositional(
  args: readonly Value[],
  kwargs: Kwargs,
  min: number,
  max: number,
): void {
  if (kwargs.length > 0) fail("unexpected keyword arguments");
  if (args.length < min) {
    fail(
      `got ${args.length} arguments, want ${min === max ? "" : "at least "}${min}`,
    );
  }
  if (args.length > max)
    fail(
      `got ${args.length} arguments, want ${min === max ? "" : "at most "}${max}`,
    );
}

export function noKwargs(kwargs: Kwargs): void {
  if (kwargs.length > 0) fail("unexpected keyword arguments");
}

function want(v: Value, param: string, what: string): never {
  return fail(`for parameter ${param}: got ${typeName(v)}, want ${what}`);
}

export function wantString(v: Value, param: string): string {
  return typeof v === "string" ? v : want(v, param, "string");
}

export function wantBool(v: Value, param: string): boolean {
  return typeof v === "boolean" ? v : want(v, param, "bool");
}

// An int argument as a JS number (indices, counts), clamped when it exceeds the safe range.
export function wantInt(v: Value, param: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return v < 0 ? -(2 ** 53) : 2 ** 53;
  return want(v, param, "int");
}

export function wantNumber(v: Value, param: string): Value {
  return isInt(v) || v instanceof Float ? v : want(v, param, "int or float");
}

export function optString(
  v: Value | undefined,
  param: string,
  dflt: string,
): string {
  return v === undefined ? dflt : wantString(v, param);
}

export function optBool(
  v: Value | undefined,
  param: string,
  dflt: boolean,
): boolean {
  return v === undefined ? dflt : wantBool(v, param);
}
