// The json module, a port of starlark-go's lib/json: encode, decode, indent, encode_indent,
// with its error messages and its representation choices (dict keys sorted on encode, ints
// exact, floats with a decimal point or exponent).

/* eslint-disable complexity -- a hand-written JSON scanner and encoder: one branch per character class or value type, as lib/json */

import { chargeString } from "./alloc.js";
import { Builtin, type Kwargs } from "./builtin.js";
import { Dict, List } from "./collections.js";
import { fail, StarlarkError } from "./errors.js";
import { formatG } from "./float-format.js";
import { HostModule } from "./host.js";
import { isIterable, toArray } from "./ops.js";
import type { Thread } from "./thread.js";
import { optString, unpackArgs, wantString } from "./unpack.js";
import type { StarObject } from "./value.js";
import {
  Float,
  isInt,
  normInt,
  quote,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";

// ---- encode ----

function encodeString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += s.slice(i, i + 2);
        i++;
      } else out += "\\ufffd";
      continue;
    }
    if (
      c >= 0x20 &&
      c !== 0x22 &&
      c !== 0x5c &&
      c !== 0x3c &&
      c !== 0x3e &&
      c !== 0x26 &&
      c !== 0x2028 &&
      c !== 0x2029
    ) {
      out += s[i] ?? "";
      continue;
    }
    out += escapeChar(c, s[i] ?? "");
  }
  return out + '"';
}

function escapeChar(c: number, ch: string): string {
  switch (c) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return "\\\\";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    default:
      if (
        c < 0x20 ||
        c === 0x3c ||
        c === 0x3e ||
        c === 0x26 ||
        c === 0x2028 ||
        c === 0x2029
      ) {
        return `\\u${c.toString(16).padStart(4, "0")}`;
      }
      return ch;
  }
}

class Encoder {
  private readonly path: object[] = [];
  out: string[] = [];

  private enter(o: object): void {
    if (this.path.includes(o)) fail("cycle in JSON structure");
    this.path.push(o);
  }

  private elems(what: string, xs: readonly Value[]): void {
    this.out.push("[");
    xs.forEach((x, i) => {
      if (i > 0) this.out.push(",");
      this.nested(`at ${what} index ${i}: `, x);
    });
    this.out.push("]");
  }

  private nested(prefix: string, x: Value): void {
    try {
      this.encode(x);
    } catch (e) {
      if (e instanceof StarlarkError && !(e.msg === ""))
        throw new StarlarkError(prefix + e.msg);
      throw e;
    }
  }

  private dict(d: Dict): void {
    const entries = [...d.map.values()].map((e) => {
      if (typeof e.k !== "string")
        fail(`dict has ${typeName(e.k)} key, want string`);
      return [e.k, e.v] as const;
    });
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    this.out.push("{");
    entries.forEach(([k, v], i) => {
      if (i > 0) this.out.push(",");
      this.out.push(encodeString(k), ":");
      this.nested(`in dict key ${quote(k)}: `, v);
    });
    this.out.push("}");
  }

  private fields(o: StarObject): void {
    this.out.push("{");
    o.attrNames()
      .slice()
      .sort()
      .forEach((name, i) => {
        if (i > 0) this.out.push(",");
        this.out.push(encodeString(name), ":");
        this.nested(`in field .${name}: `, o.attr(name) ?? null);
      });
    this.out.push("}");
  }

  encode(x: Value): void {
    if (x === null) this.out.push("null");
    else if (typeof x === "boolean") this.out.push(x ? "true" : "false");
    else if (isInt(x)) this.out.push(String(x));
    else if (typeof x === "string") this.out.push(encodeString(x));
    else if (x instanceof Float) {
      if (!Number.isFinite(x.v))
        fail(`cannot encode non-finite float ${formatG(x.v)}`);
      this.out.push(formatG(x.v));
    } else this.container(x);
  }

  private container(x: StarObject | Tuple): void {
    this.enter(x);
    try {
      if (x instanceof Dict) this.dict(x);
      else if (x instanceof List) this.elems("list", x.elems);
      else if (Array.isArray(x)) this.elems("tuple", x as Tuple);
      else this.other(x as StarObject);
    } finally {
      this.path.pop();
    }
  }

  private other(x: StarObject): void {
    if (x.attrNames().length > 0 && !(x instanceof Builtin)) {
      this.fields(x);
      return;
    }
    if (isIterable(x)) {
      this.elems(x.typeName, toArray(x));
      return;
    }
    fail(`cannot encode ${x.typeName} as JSON`);
  }
}

export function encode(x: Value): string {
  const e = new Encoder();
  e.encode(x);
  const s = e.out.join("");
  chargeString(s.length);
  return s;
}

// ---- decode ----

class Failure extends Error {}

const JSON_ESCAPES: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
};

function goQuoteByte(c: string): string {
  if (c === "'") return "'\\''";
  if (c === "\\") return "'\\\\'";
  return `'${c}'`;
}

class Decoder {
  i = 0;
  constructor(readonly s: string) {}

  fail(msg: string): never {
    throw new Failure(msg);
  }

  skipSpace(): boolean {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") return true;
      this.i++;
    }
    return false;
  }

  next(): string {
    if (this.skipSpace()) return this.s[this.i] ?? "";
    return this.fail("unexpected end of file");
  }

  literal(word: string, v: Value): Value | undefined {
    if (this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return v;
    }
    return undefined;
  }

  parse(): Value {
    const c = this.next();
    let v: Value | undefined;
    if (c === "n") v = this.literal("null", null);
    else if (c === "t") v = this.literal("true", true);
    else if (c === "f") v = this.literal("false", false);
    else if (c === "[") v = this.array();
    else if (c === "{") v = this.object();
    else if (c === '"') v = this.string();
    else if ((c >= "0" && c <= "9") || c === "-") v = this.number();
    if (v === undefined) this.fail(`unexpected character ${goQuoteByte(c)}`);
    return v;
  }

  array(): Value {
    const elems: Value[] = [];
    this.i++;
    if (this.next() !== "]") {
      for (;;) {
        elems.push(this.parse());
        const c = this.next();
        if (c === ",") {
          this.i++;
          continue;
        }
        if (c !== "]") this.fail(`got ${goQuoteByte(c)}, want ',' or ']'`);
        break;
      }
    }
    this.i++;
    return new List(elems);
  }

  object(): Value {
    const d = new Dict();
    this.i++;
    if (this.next() !== "}") {
      for (;;) {
        const key = this.parse();
        if (typeof key !== "string")
          this.fail(`got ${typeName(key)} for object key, want string`);
        let c = this.next();
        if (c !== ":")
          this.fail(`after object key, got ${goQuoteByte(c)}, want ':' `);
        this.i++;
        d.insert(key, this.parse());
        c = this.next();
        if (c === ",") {
          this.i++;
          continue;
        }
        if (c !== "}")
          this.fail(`in object, got ${goQuoteByte(c)}, want ',' or '}'`);
        break;
      }
    }
    this.i++;
    return d;
  }

  string(): string {
    const s = this.s;
    let out = "";
    let j = this.i + 1;
    for (;;) {
      if (j >= s.length) this.fail("unclosed string literal");
      const c = s[j] ?? "";
      if (c === '"') break;
      if (c === "\\") {
        j = this.escape(j, (t) => (out += t));
        continue;
      }
      if (c < " ")
        this.fail(`invalid character ${goQuoteByte(c)} in string literal`);
      out += c;
      j++;
    }
    this.i = j + 1;
    return out;
  }

  private escape(j: number, emit: (t: string) => void): number {
    const e = this.s[j + 1] ?? "";
    const simple = JSON_ESCAPES[e];
    if (simple !== undefined) {
      emit(simple);
      return j + 2;
    }
    if (e === "u") {
      const hex = this.s.slice(j + 2, j + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex))
        this.fail(`invalid escape sequence \`\\u${hex}\` in string`);
      emit(String.fromCharCode(parseInt(hex, 16)));
      return j + 6;
    }
    return this.fail(`invalid escape sequence \`\\${e}\` in string`);
  }

  number(): Value {
    const s = this.s;
    let j = this.i + 1;
    let isFloat = false;
    for (; j < s.length; j++) {
      const c = s[j] ?? "";
      if (c >= "0" && c <= "9") continue;
      if (c === "." || c === "e" || c === "E" || c === "+" || c === "-")
        isFloat = true;
      else break;
    }
    const num = s.slice(this.i, j);
    this.i = j;
    const digits = num.startsWith("-") ? num.slice(1) : num;
    const bad = (): never => this.fail(`invalid number: ${num}`);
    if (
      digits === "" ||
      (digits[0] === "0" &&
        digits.length > 1 &&
        digits[1] !== undefined &&
        digits[1] >= "0" &&
        digits[1] <= "9")
    )
      bad();
    if (isFloat) {
      if (!/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(num)) bad();
      return new Float(Number(num));
    }
    if (!/^-?\d+$/.test(num)) bad();
    return normInt(BigInt(num));
  }
}

function decode(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x, dflt] = unpackArgs(args, kwargs, ["x", "default?"]);
  if (args.length < 1) fail("unexpected keyword argument x");
  const d = new Decoder(wantString(x ?? null, "x"));
  try {
    const v = d.parse();
    if (d.skipSpace())
      d.fail(`unexpected character ${goQuoteByte(d.s[d.i] ?? "")} after value`);
    return v;
  } catch (e) {
    if (!(e instanceof Failure)) throw e;
    if (dflt !== undefined) return dflt;
    return fail(`at offset ${d.i}, ${e.message}`);
  }
}

// ---- indent ----

// Re-formats valid JSON text as Go's json.Indent does: one element per line, `prefix` at the
// start of every line but the first, `indent` per nesting level, empty containers compact.
export function indent(src: string, prefix: string, ind: string): string {
  validate(src);
  let out = "";
  let depth = 0;
  let i = 0;
  const newline = (): string => `\n${prefix}${ind.repeat(depth)}`;
  while (i < src.length) {
    const c = src[i] ?? "";
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      i++;
      continue;
    }
    if (c === '"') {
      const end = stringEnd(src, i);
      out += src.slice(i, end);
      i = end;
      continue;
    }
    if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      let k = i + 1;
      while (/\s/.test(src[k] ?? "")) k++;
      if (src[k] === close) {
        out += c + close;
        i = k + 1;
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline() + c;
    } else if (c === ",") out += c + newline();
    else if (c === ":") out += ": ";
    else out += c;
    i++;
  }
  chargeString(out.length);
  return out;
}

function stringEnd(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
  return j + 1;
}

function validate(src: string): void {
  const d = new Decoder(src);
  try {
    d.parse();
    if (d.skipSpace()) d.fail("after top-level value");
  } catch (e) {
    if (!(e instanceof Failure)) throw e;
    const c = src[d.i] ?? "";
    fail(
      c === ""
        ? "unexpected end of JSON input"
        : `invalid character ${goQuoteByte(c)} looking for beginning of value`,
    );
  }
}

function indentBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [str, prefix, ind] = unpackArgs(args, kwargs, [
    "str",
    "prefix?",
    "indent?",
  ]);
  return indent(
    wantString(str ?? null, "str"),
    optString(prefix, "prefix", ""),
    optString(ind, "indent", "\t"),
  );
}

function encodeIndent(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [prefix, ind] = unpackArgs([], kwargs, ["prefix?", "indent?"]);
  if (args.length !== 1) fail(`got ${args.length} arguments, want 1`);
  return indent(
    encode(args[0] ?? null),
    optString(prefix, "prefix", ""),
    optString(ind, "indent", "\t"),
  );
}

function encodeBuiltin(_t: Thread, args: Value[], kwargs: Kwargs): Value {
  const [x] = unpackArgs(args, kwargs, ["x"]);
  return encode(x ?? null);
}

export const jsonModule = new HostModule("json", {
  decode: new Builtin("json.decode", decode),
  encode: new Builtin("json.encode", encodeBuiltin),
  encode_indent: new Builtin("json.encode_indent", encodeIndent),
  indent: new Builtin("json.indent", indentBuiltin),
});
