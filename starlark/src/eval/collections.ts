// Mutable containers (list, dict, set), range and bytes.
//
// Lists and hash tables carry starlark-go's two guards: `frozen` (set by freeze(), permanent)
// and `itercount` (the number of active iterations). Every mutating operation calls
// checkMutable with starlark-go's verb so that error messages read "cannot append to frozen
// list" or "cannot insert into hash table during iteration".
//
// Dict and set share HashTable: a JS Map from the canonical hash key (value.ts) to the
// entry. Map keeps insertion order and appends a deleted-then-reinserted key at the end,
// which is exactly Starlark's dict order.

import { fail } from "./errors.js";
import {
  freeze,
  type HashKey,
  hashKey,
  type Iter,
  repr,
  reprNested,
  StarObject,
  type Value,
} from "./value.js";

export class ArrayIter implements Iter {
  private i = 0;
  constructor(
    private readonly a: readonly Value[],
    private readonly onDone?: () => void,
  ) {}
  next(): Value | undefined {
    return this.i < this.a.length ? this.a[this.i++] : undefined;
  }
  done(): void {
    this.onDone?.();
  }
}

export class List extends StarObject {
  get typeName(): string {
    return "list";
  }
  frozen = false;
  itercount = 0;
  constructor(public elems: Value[]) {
    super();
  }
  checkMutable(verb: string): void {
    if (this.frozen) fail(`cannot ${verb} frozen list`);
    if (this.itercount > 0) fail(`cannot ${verb} list during iteration`);
  }
  override truth(): boolean {
    return this.elems.length > 0;
  }
  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const e of this.elems) freeze(e);
  }
  override hashKey(): HashKey {
    return fail("unhashable type: list");
  }
  override repr(seen: StarObject[]): string {
    return reprNested(
      this,
      seen,
      () => `[${this.elems.map((e) => repr(e, seen)).join(", ")}]`,
      "[...]",
    );
  }
  override iterate(): Iter {
    if (!this.frozen) this.itercount++;
    return new ArrayIter(
      this.elems,
      this.frozen ? undefined : () => void this.itercount--,
    );
  }
}

export interface Entry {
  readonly k: Value;
  v: Value;
}

export abstract class HashTable extends StarObject {
  frozen = false;
  itercount = 0;
  readonly map = new Map<HashKey, Entry>();

  checkMutable(verb: string): void {
    if (this.frozen) fail(`cannot ${verb} frozen hash table`);
    if (this.itercount > 0) fail(`cannot ${verb} hash table during iteration`);
  }
  override truth(): boolean {
    return this.map.size > 0;
  }
  get size(): number {
    return this.map.size;
  }
  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const e of this.map.values()) {
      freeze(e.k);
      freeze(e.v);
    }
  }
  lookup(k: Value): Entry | undefined {
    return this.map.get(hashKey(k));
  }
  has(k: Value): boolean {
    return this.map.has(hashKey(k));
  }
  insert(k: Value, v: Value): void {
    const hk = hashKey(k);
    this.checkMutable("insert into");
    const e = this.map.get(hk);
    if (e) e.v = v;
    else this.map.set(hk, { k, v });
  }
  // Returns the removed entry, or undefined when the key was absent.
  remove(k: Value): Entry | undefined {
    const hk = hashKey(k);
    this.checkMutable("delete from");
    const e = this.map.get(hk);
    if (e) this.map.delete(hk);
    return e;
  }
  clear(): void {
    this.checkMutable("clear");
    this.map.clear();
  }
  keys(): Value[] {
    const out: Value[] = [];
    for (const e of this.map.values()) out.push(e.k);
    return out;
  }
  override iterate(): Iter {
    const keys = this.keys();
    if (this.frozen) return new ArrayIter(keys);
    this.itercount++;
    return new ArrayIter(keys, () => void this.itercount--);
  }
}

export class Dict extends HashTable {
  get typeName(): string {
    return "dict";
  }
  override hashKey(): HashKey {
    return fail("unhashable type: dict");
  }
  get(k: Value): Value | undefined {
    return this.lookup(k)?.v;
  }
  override repr(seen: StarObject[]): string {
    return reprNested(
      this,
      seen,
      () => {
        const parts: string[] = [];
        for (const e of this.map.values())
          parts.push(`${repr(e.k, seen)}: ${repr(e.v, seen)}`);
        return `{${parts.join(", ")}}`;
      },
      "{...}",
    );
  }
  items(): [Value, Value][] {
    const out: [Value, Value][] = [];
    for (const e of this.map.values()) out.push([e.k, e.v]);
    return out;
  }
}

export class StarSet extends HashTable {
  get typeName(): string {
    return "set";
  }
  override hashKey(): HashKey {
    return fail("unhashable type: set");
  }
  add(k: Value): void {
    const hk = hashKey(k);
    if (this.map.has(hk)) {
      this.checkMutable("insert into");
      return;
    }
    this.checkMutable("insert into");
    this.map.set(hk, { k, v: null });
  }
  override repr(seen: StarObject[]): string {
    return reprNested(
      this,
      seen,
      () =>
        `set([${this.keys()
          .map((k) => repr(k, seen))
          .join(", ")}])`,
      "set(...)",
    );
  }
}

export class Range extends StarObject {
  get typeName(): string {
    return "range";
  }
  readonly size: number;
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {
    super();
    this.size = rangeLen(start, stop, step);
  }
  override truth(): boolean {
    return this.size > 0;
  }
  override hashKey(): HashKey {
    return fail("unhashable: range");
  }
  override repr(): string {
    if (this.step === 1)
      return this.start === 0
        ? `range(${this.stop})`
        : `range(${this.start}, ${this.stop})`;
    return `range(${this.start}, ${this.stop}, ${this.step})`;
  }
  override len(): number {
    return this.size;
  }
  at(i: number): number {
    return this.start + i * this.step;
  }
  override iterate(): Iter {
    let i = 0;
    return {
      next: () => (i < this.size ? this.at(i++) : undefined),
      done: () => {},
    };
  }
  override equals(other: Value): boolean {
    if (!(other instanceof Range)) return false;
    if (this.size !== other.size) return false;
    if (this.size === 0) return true;
    return (
      this.start === other.start &&
      (this.size === 1 || this.step === other.step)
    );
  }
}

function rangeLen(start: number, stop: number, step: number): number {
  if (step > 0 && start < stop)
    return Math.floor((stop - start - 1) / step) + 1;
  if (step < 0 && start > stop)
    return Math.floor((start - stop - 1) / -step) + 1;
  return 0;
}

// Bytes hold one JS char per byte (0..255), so slicing and comparison are string operations.
export class Bytes extends StarObject {
  get typeName(): string {
    return "bytes";
  }
  constructor(readonly data: string) {
    super();
  }
  override truth(): boolean {
    return this.data.length > 0;
  }
  override hashKey(): HashKey {
    return `\u0001b${this.data}`;
  }
  override repr(): string {
    let out = 'b"';
    for (let i = 0; i < this.data.length; i++)
      out += bytesRune(this.data.charCodeAt(i));
    return out + '"';
  }
  // str(b) decodes the bytes as UTF-8, with U+FFFD for invalid sequences (spec: str).
  override str(): string {
    return utf8FromBytes(this);
  }
  override equals(other: Value): boolean {
    return other instanceof Bytes && other.data === this.data;
  }
}

function bytesRune(c: number): string {
  if (c === 0x22) return '\\"';
  if (c === 0x5c) return "\\\\";
  if (c >= 0x20 && c < 0x7f) return String.fromCharCode(c);
  const named: Record<number, string> = {
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
  };
  return named[c] ?? `\\x${c.toString(16).padStart(2, "0")}`;
}

export function bytesFromUtf8(s: string): Bytes {
  const u8 = new TextEncoder().encode(s);
  let out = "";
  for (const b of u8) out += String.fromCharCode(b);
  return new Bytes(out);
}

export function utf8FromBytes(b: Bytes): string {
  const u8 = new Uint8Array(b.data.length);
  for (let i = 0; i < u8.length; i++) u8[i] = b.data.charCodeAt(i);
  return new TextDecoder().decode(u8);
}
