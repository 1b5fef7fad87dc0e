// Decoding of quoted string and bytes literals (starlark-go's syntax/quote.go).
//
// Text literals decode to a JS string; bytes literals to a Uint8Array in which literal text is
// UTF-8 encoded and \x / octal escapes are raw bytes. As in Go, a string (not bytes) literal
// rejects \x and octal escapes above 0x7F, so every decoded string is valid Unicode, and a
// backslash must escape something: "\q" is an error, not a literal backslash.

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
};

export class QuoteError extends Error {}

export interface Unquoted {
  readonly raw: boolean;
  readonly isBytes: boolean;
  readonly isFString: boolean;
  /** decoded text (for bytes: the text with escapes as U+0000..U+00FF; use `bytes`) */
  readonly text: string;
  readonly bytes: Uint8Array | null;
}

interface Prefix {
  raw: boolean;
  isBytes: boolean;
  isFString: boolean;
  body: string;
}

function splitPrefix(quoted: string): Prefix {
  let i = 0;
  let raw = false;
  let isBytes = false;
  let isFString = false;
  for (; i < quoted.length; i++) {
    const c = quoted[i];
    if (c === "r") raw = true;
    else if (c === "b") isBytes = true;
    else if (c === "f") isFString = true;
    else break;
  }
  return { raw, isBytes, isFString, body: quoted.slice(i) };
}

function stripQuotes(quoted: string): string {
  if (quoted.length < 2) throw new QuoteError("string literal too short");
  const q = quoted[0];
  if ((q !== '"' && q !== "'") || q !== quoted[quoted.length - 1]) {
    throw new QuoteError("string literal has invalid quotes");
  }
  const triple = q.repeat(3);
  if (
    quoted.length >= 6 &&
    quoted.startsWith(triple) &&
    quoted.endsWith(triple)
  )
    return quoted.slice(3, -3);
  return quoted.slice(1, -1);
}

const hex4 = (n: number): string =>
  n.toString(16).toUpperCase().padStart(4, "0");

/** One decoded piece: text (code points) or a raw byte value (only from \x and octal). */
type Sink = { text: (s: string) => void; byte: (b: number) => void };

function octalEscape(
  s: string,
  i: number,
  isBytes: boolean,
  sink: Sink,
): number {
  let n = s.charCodeAt(i + 1) - 48;
  let j = i + 2;
  for (
    let k = 1;
    k < 3 && j < s.length && s[j]! >= "0" && s[j]! <= "7";
    k++, j++
  ) {
    n = n * 8 + (s.charCodeAt(j) - 48);
  }
  if (!isBytes && n > 127) {
    throw new QuoteError(
      `non-ASCII octal escape \\${n.toString(8)} (use \\u${hex4(n)} for the UTF-8 encoding of U+${hex4(n)})`,
    );
  }
  if (n >= 256)
    throw new QuoteError(
      `invalid escape sequence \\${n.toString(8).padStart(3, "0")}`,
    );
  sink.byte(n);
  return j;
}

function hexEscape(s: string, i: number, isBytes: boolean, sink: Sink): number {
  if (s.length - i < 4)
    throw new QuoteError(`truncated escape sequence ${s.slice(i)}`);
  const digits = s.slice(i + 2, i + 4);
  if (!/^[0-9a-fA-F]{2}$/.test(digits))
    throw new QuoteError(`invalid escape sequence ${s.slice(i, i + 4)}`);
  const n = parseInt(digits, 16);
  if (!isBytes && n > 127) {
    throw new QuoteError(
      `non-ASCII hex escape ${s.slice(i, i + 4)} (use \\u${hex4(n)} for the UTF-8 encoding of U+${hex4(n)})`,
    );
  }
  sink.byte(n);
  return i + 4;
}

function unicodeEscape(s: string, i: number, sink: Sink): number {
  const sz = s[i + 1] === "U" ? 10 : 6;
  if (s.length - i < sz)
    throw new QuoteError(`truncated escape sequence ${s.slice(i)}`);
  const digits = s.slice(i + 2, i + sz);
  if (!/^[0-9a-fA-F]+$/.test(digits))
    throw new QuoteError(`invalid escape sequence ${s.slice(i, i + sz)}`);
  const n = parseInt(digits, 16);
  if (n > 0x10ffff) {
    throw new QuoteError(
      `code point out of range: ${s.slice(i, i + sz)} (max \\U${n.toString(16).padStart(8, "0")})`,
    );
  }
  if (n >= 0xd800 && n < 0xe000)
    throw new QuoteError(`invalid Unicode code point U+${hex4(n)}`);
  sink.text(String.fromCodePoint(n));
  return i + sz;
}

/** Decodes the escape at s[i] (a backslash); returns the index after it. */
function escape(s: string, i: number, isBytes: boolean, sink: Sink): number {
  if (i + 1 >= s.length) throw new QuoteError("truncated escape sequence \\");
  const c = s[i + 1]!;
  if (c === "\n") return i + 2;
  const simple = SIMPLE_ESCAPES[c];
  if (simple !== undefined) {
    sink.text(simple);
    return i + 2;
  }
  if (c >= "0" && c <= "7") return octalEscape(s, i, isBytes, sink);
  if (c === "x") return hexEscape(s, i, isBytes, sink);
  if (c === "u" || c === "U") return unicodeEscape(s, i, sink);
  throw new QuoteError(`invalid escape sequence \\${c}`);
}

const encoder = new TextEncoder();

function decodeBody(
  body: string,
  raw: boolean,
  isBytes: boolean,
): { text: string; bytes: Uint8Array | null } {
  if (raw || !body.includes("\\")) {
    return { text: body, bytes: isBytes ? encoder.encode(body) : null };
  }
  return isBytes
    ? decodeBytes(body)
    : { text: decodeEscapes(body, false), bytes: null };
}

function decodeEscapes(
  body: string,
  isBytes: boolean,
  bytes: number[] = [],
): string {
  let text = "";
  const sink: Sink = isBytes
    ? {
        text: (t) => bytes.push(...encoder.encode(t)),
        byte: (b) => bytes.push(b),
      }
    : {
        text: (t) => (text += t),
        byte: (b) => (text += String.fromCharCode(b)),
      };
  let i = 0;
  while (i < body.length) {
    const j = body.indexOf("\\", i);
    const end = j < 0 ? body.length : j;
    if (end > i) sink.text(body.slice(i, end));
    if (j < 0) break;
    i = escape(body, j, isBytes, sink);
  }
  return text;
}

function decodeBytes(body: string): { text: string; bytes: Uint8Array } {
  const bytes: number[] = [];
  decodeEscapes(body, true, bytes);
  let latin1 = "";
  for (const b of bytes) latin1 += String.fromCharCode(b);
  return { text: latin1, bytes: Uint8Array.from(bytes) };
}

/** Decodes a complete literal including prefix and quotes, e.g. `rb'\x00'`. Carriage returns
 * must already have been normalised to "\n" (the scanner does so). */
export function unquote(quoted: string): Unquoted {
  const { raw, isBytes, isFString, body } = splitPrefix(quoted);
  const inner = stripQuotes(body);
  const { text, bytes } = decodeBody(inner, raw, isBytes);
  return { raw, isBytes, isFString, text, bytes };
}

/** The body of a literal without prefix and quotes (used by the f-string parser). */
export function literalBody(quoted: string): {
  raw: boolean;
  body: string;
  quoteLen: number;
  prefixLen: number;
} {
  const p = splitPrefix(quoted);
  const inner = stripQuotes(p.body);
  return {
    raw: p.raw,
    body: inner,
    quoteLen: (p.body.length - inner.length) / 2,
    prefixLen: quoted.length - p.body.length,
  };
}

/** Decodes escapes of a text (non-bytes) literal body. */
export function decodeText(body: string, raw: boolean): string {
  return decodeBody(body, raw, false).text;
}
