// Methods of string (spec.md "String methods"), indices in UTF-16 code units.

import { chargeString } from "./alloc.js";
import type { MethodFn } from "./builtin.js";
import { ArrayIter, List } from "./collections.js";
import { fail } from "./errors.js";
import { strFormat } from "./format.js";
import { mustIterate } from "./ops.js";
import {
  optBool,
  unpackArgs,
  unpackPositional,
  wantInt,
  wantString,
} from "./unpack.js";
import {
  type Iter,
  mkTuple,
  quote,
  StarObject,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";

// The iterable views returned by elems(), codepoints(), elem_ords() and codepoint_ords().
export class StringView extends StarObject {
  readonly typeName: string;
  private readonly items: Value[];
  constructor(
    readonly s: string,
    readonly method: "elems" | "codepoints" | "elem_ords" | "codepoint_ords",
  ) {
    super();
    this.typeName =
      method === "elems" || method === "elem_ords"
        ? "string.elems"
        : "string.codepoints";
    this.items = viewItems(s, method);
  }
  override repr(): string {
    return `${quote(this.s)}.${this.method}()`;
  }
  override iterate(): Iter {
    return new ArrayIter(this.items);
  }
  override len(): number {
    return this.items.length;
  }
  override index(i: Value): Value | undefined {
    const n = this.items.length;
    let k = wantInt(i, "index");
    if (k < 0) k += n;
    if (k < 0 || k >= n)
      fail(`index ${wantInt(i, "index")} out of range [${-n}:${n - 1}]`);
    return this.items[k] ?? null;
  }
}

function viewItems(s: string, method: StringView["method"]): Value[] {
  switch (method) {
    case "elems":
      return [...s.split("")];
    case "elem_ords":
      return s.split("").map((c) => c.charCodeAt(0));
    case "codepoints":
      return [...s];
    case "codepoint_ords":
      return [...s].map((c) => c.codePointAt(0) ?? 0);
  }
}

function indices(
  s: string,
  start: Value | undefined,
  end: Value | undefined,
): [number, number] {
  const n = s.length;
  const clamp = (v: Value | undefined, d: number): number => {
    if (v === undefined || v === null) return d;
    let i = wantInt(v, "index");
    if (i < 0) i += n;
    return Math.max(0, Math.min(i, n));
  };
  return [clamp(start, 0), clamp(end, n)];
}

function subArgs(
  s: string,
  args: Value[],
  kwargs: [string, Value][],
): { sub: string; lo: number; hi: number } {
  const [sub, start, end] = unpackArgs(args, kwargs, ["sub", "start?", "end?"]);
  const [lo, hi] = indices(s, start, end);
  return { sub: wantString(sub ?? null, "sub"), lo, hi };
}

function find(
  s: string,
  args: Value[],
  kwargs: [string, Value][],
  last: boolean,
): number {
  const { sub, lo, hi } = subArgs(s, args, kwargs);
  if (hi - lo < sub.length) return -1;
  const region = s.slice(lo, hi);
  const i = last ? region.lastIndexOf(sub) : region.indexOf(sub);
  return i < 0 ? -1 : i + lo;
}

const isSpace = (c: string): boolean => /\s/u.test(c);

// eslint-disable-next-line complexity -- whitespace or explicit characters, on either side
function stripChars(
  s: string,
  chars: Value | undefined,
  left: boolean,
  right: boolean,
): string {
  const set =
    chars === undefined || chars === null
      ? undefined
      : wantString(chars, "chars");
  const strip = (c: string): boolean =>
    set === undefined ? isSpace(c) : set.includes(c);
  let a = 0;
  let b = s.length;
  if (left) while (a < b && strip(s[a] ?? "")) a++;
  if (right) while (b > a && strip(s[b - 1] ?? "")) b--;
  return s.slice(a, b);
}

function splitWhitespace(s: string, max: number, fromRight: boolean): string[] {
  const words = s.split(/\s+/u).filter((w) => w !== "");
  if (max < 0 || words.length <= max + 1) return words;
  if (!fromRight) {
    const head = words.slice(0, max);
    let rest = s.trimStart();
    for (const w of head)
      rest = rest.slice(rest.indexOf(w) + w.length).trimStart();
    return [...head, rest];
  }
  const tail = words.slice(words.length - max);
  let rest = s.trimEnd();
  for (const w of [...tail].reverse())
    rest = rest.slice(0, rest.lastIndexOf(w)).trimEnd();
  return [rest, ...tail];
}

function splitSep(
  s: string,
  sep: string,
  max: number,
  fromRight: boolean,
): string[] {
  if (sep === "") fail("empty separator");
  const parts = s.split(sep);
  if (max < 0 || parts.length <= max + 1) return parts;
  if (!fromRight) return [...parts.slice(0, max), parts.slice(max).join(sep)];
  const k = parts.length - max;
  return [parts.slice(0, k).join(sep), ...parts.slice(k)];
}

function split(
  s: string,
  args: Value[],
  kwargs: [string, Value][],
  fromRight: boolean,
): List {
  const [sep, maxsplit] = unpackArgs(args, kwargs, ["sep?", "maxsplit?"]);
  const max =
    maxsplit === undefined || maxsplit === null
      ? -1
      : wantInt(maxsplit, "maxsplit");
  if (sep === undefined || sep === null)
    return new List(splitWhitespace(s, max, fromRight));
  return new List(splitSep(s, wantString(sep, "sep"), max, fromRight));
}

function startsOrEnds(
  s: string,
  args: Value[],
  kwargs: [string, Value][],
  ends: boolean,
): boolean {
  const [x, start, end] = unpackArgs(args, kwargs, [
    ends ? "suffix" : "prefix",
    "start?",
    "end?",
  ]);
  const [lo, hi] = indices(s, start, end);
  const region = s.slice(lo, Math.max(lo, hi));
  const test = (p: Value): boolean => {
    const t = wantString(p, ends ? "suffix" : "prefix");
    return ends ? region.endsWith(t) : region.startsWith(t);
  };
  if (Array.isArray(x)) return (x as Tuple).some(test);
  return test(x ?? null);
}

function partition(
  s: string,
  args: Value[],
  kwargs: [string, Value][],
  last: boolean,
): Value {
  unpackPositional(args, kwargs, 1, 1);
  const sep = wantString(args[0] ?? null, "sep");
  if (sep === "") fail("empty separator");
  const i = last ? s.lastIndexOf(sep) : s.indexOf(sep);
  if (i < 0) return last ? mkTuple(["", "", s]) : mkTuple([s, "", ""]);
  return mkTuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
}

const hasCased = (s: string): boolean => /[\p{Lu}\p{Ll}\p{Lt}]/u.test(s);

// starlark-go's title: upper-case a character after an uncased one, lower-case it after a cased one.
function title(s: string): string {
  let out = "";
  let prevCased = false;
  for (const c of s) {
    out += prevCased ? c.toLowerCase() : c.toUpperCase();
    prevCased = /[\p{Lu}\p{Ll}\p{Lt}]/u.test(c);
  }
  return out;
}

function istitle(s: string): boolean {
  let prevCased = false;
  let sawCased = false;
  for (const c of s) {
    const upper = /[\p{Lu}\p{Lt}]/u.test(c);
    const lower = /\p{Ll}/u.test(c);
    if (upper && prevCased) return false;
    if (lower && !prevCased) return false;
    prevCased = upper || lower;
    sawCased ||= prevCased;
  }
  return sawCased;
}

function noArgs(args: Value[], kwargs: [string, Value][]): void {
  unpackPositional(args, kwargs, 0, 0);
}

function join(sep: string, iterable: Value): string {
  const it = mustIterate(iterable);
  const parts: string[] = [];
  let total = 0;
  try {
    for (let v = it.next(); v !== undefined; v = it.next()) {
      if (typeof v !== "string")
        fail(`in list, want string, got ${typeName(v)}`);
      parts.push(v);
      total += v.length + sep.length;
      chargeString(total, 0);
    }
  } finally {
    it.done();
  }
  const out = parts.join(sep);
  chargeString(out.length);
  return out;
}

function replace(s: string, args: Value[], kwargs: [string, Value][]): string {
  const [oldV, newV, countV] = unpackArgs(args, kwargs, [
    "old",
    "new",
    "count?",
  ]);
  const from = wantString(oldV ?? null, "old");
  const to = wantString(newV ?? null, "new");
  const count =
    countV === undefined || countV === null ? -1 : wantInt(countV, "count");
  let out: string;
  // Python inserts `new` around every character when `old` is empty.
  if (from === "") {
    const chars = s.split("");
    const n = count < 0 ? chars.length + 1 : Math.min(count, chars.length + 1);
    out =
      chars.map((ch, i) => (i < n ? to + ch : ch)).join("") +
      (n > chars.length ? to : "");
  } else if (count < 0) out = s.split(from).join(to);
  else {
    const parts = s.split(from);
    out =
      parts.length - 1 <= count
        ? parts.join(to)
        : parts.slice(0, count + 1).join(to) +
          from +
          parts.slice(count + 1).join(from);
  }
  chargeString(out.length);
  return out;
}

function splitlines(s: string, args: Value[], kwargs: [string, Value][]): List {
  const [keep] = unpackArgs(args, kwargs, ["keepends?"]);
  const keepends = optBool(keep, "keepends", false);
  const lines: string[] = [];
  // Python's splitlines also breaks at the file, group and record separators.
  // eslint-disable-next-line no-control-regex
  const re = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/gu;
  let last = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    lines.push(s.slice(last, keepends ? m.index + m[0].length : m.index));
    last = m.index + m[0].length;
  }
  if (last < s.length) lines.push(s.slice(last));
  return new List(lines);
}

const pred =
  (test: (s: string) => boolean): MethodFn<string> =>
  (_t, s, args, kwargs) => {
    noArgs(args, kwargs);
    return test(s);
  };

const conv =
  (f: (s: string) => string): MethodFn<string> =>
  (_t, s, args, kwargs) => {
    noArgs(args, kwargs);
    return f(s);
  };

const view =
  (method: StringView["method"]): MethodFn<string> =>
  (_t, s, args, kwargs) => {
    noArgs(args, kwargs);
    return new StringView(s, method);
  };

function indexOrFail(r: number): number {
  if (r < 0) fail("substring not found");
  return r;
}

export const stringMethods: Record<string, MethodFn<string>> = {
  capitalize: conv(
    (s) => (s[0] ?? "").toUpperCase() + s.slice(1).toLowerCase(),
  ),
  codepoint_ords: view("codepoint_ords"),
  codepoints: view("codepoints"),
  count(_t, s, args, kwargs) {
    const { sub, lo, hi } = subArgs(s, args, kwargs);
    const region = s.slice(lo, Math.max(lo, hi));
    if (sub === "") return region.length + 1;
    return region.split(sub).length - 1;
  },
  elem_ords: view("elem_ords"),
  elems: view("elems"),
  endswith: (_t, s, args, kwargs) => startsOrEnds(s, args, kwargs, true),
  find: (_t, s, args, kwargs) => find(s, args, kwargs, false),
  format: (_t, s, args, kwargs) => strFormat(s, args, kwargs),
  index: (_t, s, args, kwargs) => indexOrFail(find(s, args, kwargs, false)),
  isalnum: pred((s) => s !== "" && /^[\p{L}\p{N}]+$/u.test(s)),
  isalpha: pred((s) => s !== "" && /^\p{L}+$/u.test(s)),
  isdigit: pred((s) => s !== "" && /^\p{Nd}+$/u.test(s)),
  islower: pred((s) => hasCased(s) && s === s.toLowerCase()),
  isspace: pred((s) => s !== "" && /^\s+$/u.test(s)),
  istitle: pred(istitle),
  isupper: pred((s) => hasCased(s) && s === s.toUpperCase()),
  join(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    return join(s, args[0] ?? null);
  },
  lower: conv((s) => s.toLowerCase()),
  lstrip(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 0, 1);
    return stripChars(s, args[0], true, false);
  },
  partition: (_t, s, args, kwargs) => partition(s, args, kwargs, false),
  removeprefix(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    const p = wantString(args[0] ?? null, "prefix");
    return s.startsWith(p) ? s.slice(p.length) : s;
  },
  removesuffix(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    const p = wantString(args[0] ?? null, "suffix");
    return p !== "" && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
  },
  replace: (_t, s, args, kwargs) => replace(s, args, kwargs),
  rfind: (_t, s, args, kwargs) => find(s, args, kwargs, true),
  rindex: (_t, s, args, kwargs) => indexOrFail(find(s, args, kwargs, true)),
  rpartition: (_t, s, args, kwargs) => partition(s, args, kwargs, true),
  rsplit: (_t, s, args, kwargs) => split(s, args, kwargs, true),
  rstrip(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 0, 1);
    return stripChars(s, args[0], false, true);
  },
  split: (_t, s, args, kwargs) => split(s, args, kwargs, false),
  splitlines: (_t, s, args, kwargs) => splitlines(s, args, kwargs),
  startswith: (_t, s, args, kwargs) => startsOrEnds(s, args, kwargs, false),
  strip(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 0, 1);
    return stripChars(s, args[0], true, true);
  },
  title: conv(title),
  upper: conv((s) => s.toUpperCase()),
};
