// The Starlark value model.
//
// Values map onto cheap JS representations where the language allows it, because the
// interpreter loop spends most of its time testing types:
//   None -> null, bool -> boolean, string -> string (UTF-16 code units, like starlark-java),
//   int -> number while it is a safe integer and bigint beyond (always normalised, so
//   `typeof v === "number"` is the fast path and every int is exact),
//   tuple -> a JS array typed readonly.
// Everything else is a StarObject subclass: Float (boxed so that 1 and 1.0 stay distinct),
// List, Dict, StarSet, Range, Bytes, functions, builtins and host objects.
//
// Hashing follows the language: equal values hash equally (1 == 1.0 as dict keys), so hash
// keys are canonical JS primitives that a Map can use directly (see hashKey).

import { fail } from "./errors.js";
import { formatG } from "./float-format.js";

export type Value =
  null | boolean | number | bigint | string | StarObject | Tuple;
export type Tuple = readonly Value[];

// A canonical Map key for a hashable value.
export type HashKey = null | boolean | number | bigint | string | object;

export interface Iter {
  next(): Value | undefined;
  done(): void;
}

export abstract class StarObject {
  abstract readonly typeName: string;
  truth(): boolean {
    return true;
  }
  freeze(): void {}
  hashKey(): HashKey {
    return this;
  }
  repr(_seen: StarObject[]): string {
    return `<${this.typeName}>`;
  }
  str(seen: StarObject[]): string {
    return this.repr(seen);
  }
  // Attributes (fields and methods); undefined when absent.
  attr(_name: string): Value | undefined {
    return undefined;
  }
  attrNames(): string[] {
    return [];
  }
  equals(other: Value, _depth: number): boolean {
    return this === other;
  }
  // The protocol hooks below return undefined when the value does not support them.
  len(): number | undefined {
    return undefined;
  }
  iterate(): Iter | undefined {
    return undefined;
  }
  index(_i: Value): Value | undefined {
    return undefined;
  }
  contains(_x: Value): boolean | undefined {
    return undefined;
  }
  // `this op other` (right=false) or `other op this` (right=true).
  binaryOp(_op: string, _other: Value, _right: boolean): Value | undefined {
    return undefined;
  }
  setField(name: string, _v: Value): void {
    fail(`can't assign to .${name} field of ${this.typeName}`);
  }
}

export class Float extends StarObject {
  get typeName(): string {
    return "float";
  }
  constructor(readonly v: number) {
    super();
  }
  override truth(): boolean {
    return this.v !== 0;
  }
  override hashKey(): HashKey {
    const v = this.v;
    if (Number.isInteger(v) && !Number.isSafeInteger(v)) return BigInt(v);
    return v === 0 ? 0 : v;
  }
  override repr(): string {
    return formatG(this.v);
  }
}

// Tuples are plain arrays typed readonly: no Starlark operation mutates them, and host code
// must not either. (Object.freeze would move them to V8's slow frozen-elements paths.)
export function mkTuple(elems: Value[]): Tuple {
  return elems;
}

export function isInt(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

// Normalise a bigint result: back to number when safe.
export function normInt(b: bigint): number | bigint {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

export function typeName(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "int";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    default:
      if (v === null) return "NoneType";
      if (Array.isArray(v)) return "tuple";
      return (v as StarObject).typeName;
  }
}

export function truth(v: Value): boolean {
  switch (typeof v) {
    case "boolean":
      return v;
    case "number":
      return v !== 0;
    case "bigint":
      return v !== 0n;
    case "string":
      return v.length > 0;
    default:
      if (v === null) return false;
      if (Array.isArray(v)) return v.length > 0;
      return (v as StarObject).truth();
  }
}

export function freeze(v: Value): void {
  if (v === null || typeof v !== "object") return;
  if (Array.isArray(v)) {
    for (const e of v as Tuple) freeze(e);
    return;
  }
  (v as StarObject).freeze();
}

// Identity ids for values hashed by identity inside tuple keys.
const objectIds = new WeakMap<object, number>();
let nextObjectId = 1;
function objectId(o: object): number {
  let id = objectIds.get(o);
  if (id === undefined) {
    id = nextObjectId++;
    objectIds.set(o, id);
  }
  return id;
}

function keyPart(k: HashKey): string {
  switch (typeof k) {
    case "string":
      return JSON.stringify(k);
    case "number":
      return `n${k}`;
    case "bigint":
      return `n${k}`;
    case "boolean":
      return k ? "T" : "F";
    default:
      return k === null ? "N" : `o${objectId(k)}`;
  }
}

export function hashKey(v: Value): HashKey {
  switch (typeof v) {
    case "string":
      // Tuple keys are strings starting with \u0001; keep real strings apart from them.
      return v.charCodeAt(0) === 1 ? `\u0001s${v}` : v;
    case "number":
      return v === 0 ? 0 : v;
    case "bigint":
    case "boolean":
      return v;
    default:
      if (v === null) return null;
      if (Array.isArray(v))
        return `\u0001t(${(v as Tuple).map((e) => keyPart(hashKey(e))).join(",")})`;
      return (v as StarObject).hashKey();
  }
}

// ---- string quoting (Go's strconv.Quote, as starlark-go's syntax.Quote) ----

const ESC: Record<string, string> = {
  "\x07": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  "\\": "\\\\",
  '"': '\\"',
};

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, "0");
}

function quoteRune(ch: string, cp: number): string {
  const e = ESC[ch];
  if (e !== undefined) return e;
  if (cp < 0x20 || cp === 0x7f) return `\\x${hex(cp, 2)}`;
  if (cp < 0x7f) return ch;
  // Lone surrogates and non-printing code points (C0/C1 controls, format characters).
  if ((cp >= 0xd800 && cp <= 0xdfff) || /[\p{C}\p{Z}]/u.test(ch)) {
    if (ch === " ") return ch;
    return cp > 0xffff ? `\\U${hex(cp, 8)}` : `\\u${hex(cp, 4)}`;
  }
  return ch;
}

const SIMPLE = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

export function quote(s: string): string {
  if (SIMPLE.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) out += quoteRune(ch, ch.codePointAt(0) ?? 0);
  return out + '"';
}

// ---- str and repr ----

export function repr(v: Value, seen: StarObject[] = []): string {
  switch (typeof v) {
    case "string":
      return quote(v);
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "True" : "False";
    default:
      if (v === null) return "None";
      if (Array.isArray(v)) return reprTuple(v as Tuple, seen);
      return (v as StarObject).repr(seen);
  }
}

function reprTuple(t: Tuple, seen: StarObject[]): string {
  if (t.length === 1) return `(${repr(t[0] ?? null, seen)},)`;
  return `(${t.map((e) => repr(e, seen)).join(", ")})`;
}

export function str(v: Value): string {
  if (typeof v === "string") return v;
  if (v instanceof StarObject) return v.str([]);
  return repr(v);
}

// Repr of a container element with cycle detection: a container that contains itself
// prints as "..." at the point of recursion, as starlark-go does.
export function reprNested(
  o: StarObject,
  seen: StarObject[],
  body: () => string,
  cyc: string,
): string {
  if (seen.includes(o)) return cyc;
  seen.push(o);
  try {
    return body();
  } finally {
    seen.pop();
  }
}
