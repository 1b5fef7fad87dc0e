// str.format and f-string fields.
//
// str.format follows starlark-go: {} {0} {name} with !s / !r conversions and {{ }} escapes.
// Extension: a Python format spec after ':' ("{:.2f}"), which starlark-go rejects, is accepted
// here and in f-string fields, because model-written scripts use it constantly; the supported
// subset is [[fill]align][sign][0][width][,][.precision][type] with types s d x X o b e E f F
// g G %.

import { chargeString } from "./alloc.js";
import type { Kwargs } from "./builtin.js";
import { fail } from "./errors.js";
import { formatE, formatF, formatG } from "./float-format.js";
import { intToFloat } from "./numeric.js";
import { Float, isInt, repr, str, typeName, type Value } from "./value.js";

function fieldValue(
  name: string,
  args: readonly Value[],
  kwargs: Kwargs,
  auto: { n: number; manual: boolean | undefined },
): Value {
  if (name === "") {
    if (auto.manual === true)
      fail(
        "cannot switch from manual field specification to automatic field numbering",
      );
    auto.manual = false;
    const v = args[auto.n];
    if (v === undefined) fail("tuple index out of range");
    auto.n++;
    return v;
  }
  if (/^\d+$/.test(name)) {
    if (auto.manual === false)
      fail(
        "cannot switch from automatic field numbering to manual field specification",
      );
    auto.manual = true;
    const v = args[Number(name)];
    if (v === undefined) fail("tuple index out of range");
    return v;
  }
  if (name.includes("."))
    fail("attribute syntax x.y is not supported in replacement fields");
  if (name.includes("["))
    fail("element index syntax a[i] is not supported in replacement fields");
  const kv = kwargs.find(([k]) => k === name);
  if (!kv) fail(`keyword ${name} not found`);
  return kv[1];
}

function replacement(
  field: string,
  args: readonly Value[],
  kwargs: Kwargs,
  auto: { n: number; manual: boolean | undefined },
): string {
  let name = field;
  let conv = "s";
  let spec: string | null = null;
  const colon = name.indexOf(":");
  if (colon >= 0) {
    spec = name.slice(colon + 1);
    name = name.slice(0, colon);
  }
  const bang = name.indexOf("!");
  if (bang >= 0) {
    conv = name.slice(bang + 1);
    name = name.slice(0, bang);
    if (conv !== "s" && conv !== "r")
      fail(conv === "" ? "missing conversion" : `unknown conversion ${conv}`);
  }
  const v = fieldValue(name, args, kwargs, auto);
  return formatField(v, conv === "r" ? "r" : null, spec);
}

export function strFormat(
  format: string,
  args: readonly Value[],
  kwargs: Kwargs,
): string {
  let out = "";
  const auto = { n: 0, manual: undefined as boolean | undefined };
  let i = 0;
  while (i < format.length) {
    const c = format[i] ?? "";
    if (c === "}") {
      if (format[i + 1] !== "}") fail("single '}' in format");
      out += "}";
      i += 2;
      continue;
    }
    if (c !== "{") {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === "{") {
      out += "{";
      i += 2;
      continue;
    }
    const close = format.indexOf("}", i);
    if (close < 0) fail("unmatched '{' in format");
    const field = format.slice(i + 1, close);
    if (field.includes("{")) fail("nested replacement fields not supported");
    out += replacement(field, args, kwargs, auto);
    chargeString(out.length, 0);
    i = close + 1;
  }
  chargeString(out.length);
  return out;
}

// ---- Python format spec (f-strings) ----

interface Spec {
  fill: string;
  align: string;
  sign: string;
  zero: boolean;
  width: number;
  comma: boolean;
  precision: number | undefined;
  type: string;
}

const SPEC_RE =
  /^(?:(.)?([<>=^]))?([+\- ])?(0)?(\d+)?(,)?(?:\.(\d+))?([sdxXobeEfFgG%])?$/su;

function parseSpec(spec: string): Spec {
  const m = SPEC_RE.exec(spec);
  if (!m) return fail(`invalid format spec ${repr(spec)}`);
  return {
    fill: m[1] ?? (m[4] ? "0" : " "),
    align: m[2] ?? (m[4] ? "=" : ""),
    sign: m[3] ?? "-",
    zero: m[4] !== undefined,
    width: m[5] ? Number(m[5]) : 0,
    comma: m[6] !== undefined,
    precision: m[7] !== undefined ? Number(m[7]) : undefined,
    type: m[8] ?? "",
  };
}

function groupThousands(digits: string): string {
  const [intPart = "", frac] = digits.split(".");
  const grouped = intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}

// eslint-disable-next-line complexity -- one branch per presentation type of the format spec
function numberBody(v: Value, s: Spec): { neg: boolean; body: string } {
  const t = s.type || (v instanceof Float ? "g" : "d");
  if (isInt(v) && "dxXob".includes(t)) {
    const neg = v < 0;
    const abs = neg ? -(v as number) : v;
    const radix = { d: 10, x: 16, X: 16, o: 8, b: 2 }[t] ?? 10;
    let body = abs.toString(radix);
    if (t === "X") body = body.toUpperCase();
    return { neg, body: s.comma ? groupThousands(body) : body };
  }
  if (!isInt(v) && !(v instanceof Float))
    fail(`format spec ${t} requires a number, not ${typeName(v)}`);
  const x = isInt(v) ? intToFloat(v) : v.v;
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let body: string;
  const p = s.precision ?? 6;
  switch (t) {
    case "e":
    case "E":
      body = formatE(a, p);
      break;
    case "f":
    case "F":
      body = formatF(a, p);
      break;
    case "%":
      body = `${formatF(a * 100, p)}%`;
      break;
    case "d":
      return fail("format spec d requires an int");
    default:
      body = s.precision === undefined ? formatG(a) : pyGeneral(a, p);
  }
  if (t === "E" || t === "F" || t === "G") body = body.toUpperCase();
  return { neg, body: s.comma ? groupThousands(body) : body };
}

// Python's %g with an explicit precision: significant digits, trailing zeros removed.
function pyGeneral(a: number, p: number): string {
  const prec = p === 0 ? 1 : p;
  if (a === 0) return "0";
  const exp = Math.floor(Math.log10(a));
  if (exp < -4 || exp >= prec) {
    const [m = "", e = "0"] = a.toExponential(prec - 1).split("e");
    const mant = m.includes(".") ? m.replace(/\.?0+$/, "") : m;
    const en = Number(e);
    return `${mant}e${en < 0 ? "-" : "+"}${String(Math.abs(en)).padStart(2, "0")}`;
  }
  const f = a.toFixed(Math.max(0, prec - 1 - exp));
  return f.includes(".") ? f.replace(/\.?0+$/, "") : f;
}

function pad(
  s: string,
  spec: Spec,
  defaultAlign: string,
  signStr = "",
): string {
  const len = [...s].length + signStr.length;
  if (len >= spec.width) return signStr + s;
  const n = spec.width - len;
  const fill = spec.fill.repeat(n);
  switch (spec.align || defaultAlign) {
    case "<":
      return signStr + s + fill;
    case "^":
      return (
        spec.fill.repeat(Math.floor(n / 2)) +
        signStr +
        s +
        spec.fill.repeat(n - Math.floor(n / 2))
      );
    case "=":
      return signStr + fill + s;
    default:
      return fill + signStr + s;
  }
}

export function applySpec(v: Value, spec: string): string {
  const s = parseSpec(spec);
  if (
    typeof v === "string" ||
    s.type === "s" ||
    (s.type === "" && !isInt(v) && !(v instanceof Float))
  ) {
    let text = str(v);
    if (s.precision !== undefined)
      text = [...text].slice(0, s.precision).join("");
    return pad(text, s, "<");
  }
  const { neg, body } = numberBody(v, s);
  const signStr = neg ? "-" : s.sign === "+" ? "+" : s.sign === " " ? " " : "";
  return pad(body, s, ">", signStr);
}

export function formatField(
  v: Value,
  conversion: "s" | "r" | null,
  spec: string | null,
): string {
  if (conversion === "r") return spec ? applySpec(repr(v), spec) : repr(v);
  if (spec) return applySpec(v, spec);
  return str(v);
}
