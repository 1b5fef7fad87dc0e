// Conversion between JS data and Starlark values for JSON-shaped data
// (dict/list/str/int/float/bool/None), and the wrapper that turns an async JS function into
// a Starlark builtin taking keyword arguments or one dict (how code mode exposes MCP tools).

import { Builtin, type Kwargs } from "./builtin.js";
import { Dict, List, StarSet } from "./collections.js";
import { fail } from "./errors.js";
import { Struct } from "./host.js";
import type { Thread } from "./thread.js";
import {
  Float,
  normInt,
  StarObject,
  str,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";

// JS -> Starlark. Integral numbers become ints, other numbers floats; arrays become lists,
// plain objects and Maps dicts; Starlark values pass through unchanged.
export function toStarlark(v: unknown): Value {
  switch (typeof v) {
    case "undefined":
      return null;
    case "boolean":
    case "string":
      return v;
    case "number":
      return Number.isSafeInteger(v) ? (v === 0 ? 0 : v) : new Float(v);
    case "bigint":
      return normInt(v);
    case "object":
      return objectToStarlark(v);
    default:
      throw new TypeError(
        `cannot convert a JS ${typeof v} to a Starlark value`,
      );
  }
}

function objectToStarlark(v: object | null): Value {
  if (v === null) return null;
  if (v instanceof StarObject) return v;
  if (Array.isArray(v)) return new List(v.map(toStarlark));
  const d = new Dict();
  const entries: Iterable<[unknown, unknown]> =
    v instanceof Map ? (v as Map<unknown, unknown>) : Object.entries(v);
  for (const [k, val] of entries) d.insert(toStarlark(k), toStarlark(val));
  return d;
}

export type JsonValue =
  null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

// Starlark -> JS. Ints beyond the safe range become numbers (JSON has no bigints) and dict
// keys are converted with str(); values with no JSON form (functions, ...) are an error.
export function toJS(v: Value): JsonValue {
  switch (typeof v) {
    case "boolean":
    case "string":
    case "number":
      return v;
    case "bigint":
      return Number(v);
    default:
      if (v === null) return null;
      if (Array.isArray(v)) return (v as Tuple).map(toJS);
      return objectToJS(v as StarObject);
  }
}

// Defines an own property even for "__proto__", so script-chosen keys cannot change an
// object's prototype.
function setOwn(o: Record<string, JsonValue>, k: string, v: JsonValue): void {
  Object.defineProperty(o, k, {
    value: v,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function objectToJS(v: StarObject): JsonValue {
  if (v instanceof Float) return v.v;
  if (v instanceof List) return v.elems.map(toJS);
  if (v instanceof StarSet) return v.keys().map(toJS);
  if (v instanceof Dict) {
    const out: Record<string, JsonValue> = {};
    for (const e of v.map.values()) setOwn(out, str(e.k), toJS(e.v));
    return out;
  }
  if (v instanceof Struct) {
    const out: Record<string, JsonValue> = {};
    for (const [k, f] of v.fields) setOwn(out, k, toJS(f));
    return out;
  }
  return fail(`cannot convert ${typeName(v)} to a JSON value`);
}

export type ToolFn = (
  params: Record<string, JsonValue>,
  thread: Thread,
) => unknown;

// A builtin that calls fn with its arguments as one JSON object: either keyword arguments
// (`server.tool(x=1)`) or a single dict (`server.tool({"x": 1})`). fn may be async; its
// result is converted back with toStarlark.
export function toolFunction(name: string, fn: ToolFn): Builtin {
  return new Builtin(name, (thread: Thread, args: Value[], kwargs: Kwargs) => {
    const params = toolParams(args, kwargs);
    const r = fn(params, thread);
    return r instanceof Promise ? r.then(toStarlark) : toStarlark(r);
  });
}

function toolParams(
  args: readonly Value[],
  kwargs: Kwargs,
): Record<string, JsonValue> {
  if (args.length > 1)
    fail(
      `got ${args.length} positional arguments, want keyword arguments or one dict`,
    );
  const params: Record<string, JsonValue> = {};
  const first = args[0];
  if (first !== undefined) {
    if (!(first instanceof Dict))
      fail(`got ${typeName(first)}, want keyword arguments or one dict`);
    for (const [k, v] of Object.entries(
      toJS(first) as Record<string, JsonValue>,
    ))
      setOwn(params, k, v);
  }
  for (const [k, v] of kwargs) setOwn(params, k, toJS(v));
  return params;
}
