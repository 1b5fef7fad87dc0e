// The Starlark scanner (starlark-go's syntax/scan.go), producing one token at a time for the
// LL(1) parser.
//
// Indentation follows Python and starlark-go: at the start of each logical line the leading
// blanks are measured (a space counts 1, a tab advances to the next multiple of 8) and compared
// with a stack of indentation levels, yielding INDENT/OUTDENT tokens; blank and comment-only
// lines and lines inside brackets do not count. Carriage returns are normalised to "\n" once,
// up front, which matches Go's treatment of "\r\n" and "\r" as one newline everywhere
// (including inside string literals).
//
// Positions are 1-based lines and 1-based columns counted in code points, as Go counts runes.

import type { Pos } from "./ast.js";
import { StarlarkSyntaxError } from "./errors.js";
import { QuoteError, unquote } from "./quote.js";
import { KEYWORD_TOKENS, type Token } from "./tokens.js";

export type TokenLiteral = number | bigint | string | Uint8Array | null;

export interface TokenValue {
  tok: Token;
  pos: Pos;
  raw: string;
  value: TokenLiteral;
}

const TAB = 8;

const isDigit = (c: string): boolean => c >= "0" && c <= "9";
const isOctal = (c: string): boolean => c >= "0" && c <= "7";
const isHex = (c: string): boolean =>
  isDigit(c) || (c >= "a" && c <= "f") || (c >= "A" && c <= "F");
const isBinary = (c: string): boolean => c === "0" || c === "1";
const LETTER = /\p{L}/u;
const isIdentStart = (c: string): boolean =>
  (c >= "a" && c <= "z") ||
  (c >= "A" && c <= "Z") ||
  c === "_" ||
  (c > "\x7f" && LETTER.test(c));
const isIdent = (c: string): boolean => isDigit(c) || isIdentStart(c);

/** Two-character operators (and their three-character `=` extensions). */
const OPERATORS: ReadonlyMap<string, Token> = new Map<string, Token>([
  ["<<=", "<<="],
  [">>=", ">>="],
  ["//=", "//="],
  ["<=", "<="],
  [">=", ">="],
  ["==", "=="],
  ["!=", "!="],
  ["+=", "+="],
  ["-=", "-="],
  ["*=", "*="],
  ["/=", "/="],
  ["%=", "%="],
  ["&=", "&="],
  ["|=", "|="],
  ["^=", "^="],
  ["<<", "<<"],
  [">>", ">>"],
  ["//", "//"],
  ["**", "**"],
]);
const BRACKETS: ReadonlySet<string> = new Set(["(", "[", "{", ")", "]", "}"]);
const STRING_PREFIXES: ReadonlySet<string> = new Set([
  "r",
  "b",
  "rb",
  "f",
  "rf",
  "fr",
]);
const PREFIX_LETTERS: ReadonlySet<string> = new Set(["r", "b", "f"]);
const ASCII_IDENT = new Uint8Array(128);
for (let c = 0; c < 128; c++)
  ASCII_IDENT[c] = isIdent(String.fromCharCode(c)) ? 1 : 0;
const SINGLE: ReadonlySet<string> = new Set([
  "=",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  "&",
  "|",
  "^",
  ":",
  ";",
  "~",
]);

export class Scanner {
  private readonly src: string;
  private i = 0;
  private line = 1;
  private col = 1;
  private depth = 0;
  private readonly indentstk: number[] = [0];
  private dents = 0;
  private lineStart = true;

  constructor(
    private readonly filename: string,
    src: string,
    private readonly fstrings: boolean,
    start?: Pos,
  ) {
    this.src = src.includes("\r") ? src.replace(/\r\n?/g, "\n") : src;
    if (start !== undefined) {
      this.line = start.line;
      this.col = start.col;
    }
  }

  /** The current input position (just after the most recently scanned token). */
  get pos(): Pos {
    return { line: this.line, col: this.col };
  }

  error(pos: Pos, msg: string): never {
    throw new StarlarkSyntaxError(this.filename, pos, msg);
  }

  private peek(offset = 0): string {
    return this.src[this.i + offset] ?? "";
  }

  /** The next code point (a surrogate pair counts as one). */
  private peekCodePoint(): string {
    const cp = this.src.codePointAt(this.i);
    return cp === undefined ? "" : String.fromCodePoint(cp);
  }

  private read(): string {
    const c = this.src[this.i] ?? "";
    this.i++;
    if (c === "\n") {
      this.line++;
      this.col = 1;
      return c;
    }
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code < 0xdc00 && this.i < this.src.length) {
      const next = this.src.charCodeAt(this.i);
      if (next >= 0xdc00 && next < 0xe000) {
        this.i++;
        this.col++;
        return c + String.fromCharCode(next);
      }
    }
    this.col++;
    return c;
  }

  private tokenAt(
    tok: Token,
    pos: Pos,
    start: number,
    value: TokenLiteral = null,
  ): TokenValue {
    return { tok, pos, raw: this.src.slice(start, this.i), value };
  }

  /** Measures leading blanks at a line start and queues INDENT/OUTDENT tokens. Returns whether
   * the line is blank (comment-only, empty, or end of input). */
  private indentation(): boolean {
    const col = this.leadingBlanks();
    const c = this.peek();
    const blank = c === "#" || c === "\n" || c === "";
    if (!blank && this.depth === 0) this.indentTo(col);
    return blank;
  }

  private leadingBlanks(): number {
    let col = 0;
    for (;;) {
      const c = this.peek();
      if (c === " ") col++;
      else if (c === "\t") col += TAB - ((this.col - 1) % TAB);
      else return col;
      this.read();
    }
  }

  private indentTo(col: number): void {
    const stk = this.indentstk;
    if (col > stk[stk.length - 1]!) {
      this.dents++;
      stk.push(col);
      return;
    }
    while (stk.length > 0 && col < stk[stk.length - 1]!) {
      this.dents--;
      stk.pop();
    }
    if (col !== stk[stk.length - 1])
      this.error(
        this.pos,
        "unindent does not match any outer indentation level",
      );
  }

  next(): TokenValue {
    for (;;) {
      const savedLineStart = this.lineStart;
      let blank = false;
      if (this.lineStart) {
        this.lineStart = false;
        blank = this.indentation();
      }
      if (this.dents !== 0) {
        const pos = this.pos;
        if (this.dents < 0) {
          this.dents++;
          return { tok: "OUTDENT", pos, raw: "", value: null };
        }
        this.dents--;
        return { tok: "INDENT", pos, raw: "", value: null };
      }
      const tok = this.lineRest(blank, savedLineStart);
      if (tok !== null) return tok;
    }
  }

  /** Scans the next token on the current line; null means "start over" (a skipped newline or
   * continuation, or queued outdents at end of input). */
  private lineRest(blank: boolean, savedLineStart: boolean): TokenValue | null {
    let c = this.peek();
    while (c === " " || c === "\t") {
      this.read();
      c = this.peek();
    }
    if (c === "#") {
      // Skip to the end of the line (a comment cannot contain a newline).
      const nl = this.src.indexOf("\n", this.i);
      const end = nl < 0 ? this.src.length : nl;
      this.col += [...this.src.slice(this.i, end)].length;
      this.i = end;
      c = this.peek();
    }
    if (c === "\n") return this.newline(blank);
    if (c === "") return this.endOfInput(savedLineStart);
    if (c === "\\") {
      this.read();
      if (this.peek() !== "\n")
        this.error(this.pos, "stray backslash in program");
      this.read();
      return null;
    }
    return this.token(c);
  }

  private newline(blank: boolean): TokenValue | null {
    this.lineStart = true;
    if (this.depth > 0 || blank) {
      this.read();
      return null;
    }
    const pos = this.pos;
    this.read();
    return { tok: "NEWLINE", pos, raw: "\n", value: null };
  }

  private endOfInput(savedLineStart: boolean): TokenValue | null {
    if (this.indentstk.length > 1) {
      if (savedLineStart) {
        this.dents = 1 - this.indentstk.length;
        this.indentstk.length = 1;
        return null;
      }
      this.lineStart = true;
      return { tok: "NEWLINE", pos: this.pos, raw: "\n", value: null };
    }
    return { tok: "EOF", pos: this.pos, raw: "", value: null };
  }

  private token(c: string): TokenValue {
    const pos = this.pos;
    const start = this.i;
    if (c === ",") {
      this.read();
      return this.tokenAt(",", pos, start);
    }
    if (c === '"' || c === "'") return this.string(pos, start);
    if (isIdentStart(this.peekCodePoint()))
      return this.identOrPrefixedString(pos, start);
    if (BRACKETS.has(c)) return this.bracket(c, pos, start);
    if (isDigit(c) || c === ".") return this.number(pos, start);
    return this.operator(c, pos, start);
  }

  private bracket(c: string, pos: Pos, start: number): TokenValue {
    if (c === "(" || c === "[" || c === "{") {
      this.depth++;
    } else {
      if (this.depth === 0) this.error(this.pos, `unexpected '${c}'`);
      this.depth--;
    }
    this.read();
    return this.tokenAt(c as Token, pos, start);
  }

  private operator(c: string, pos: Pos, start: number): TokenValue {
    for (let len = 3; len >= 2; len--) {
      const op = OPERATORS.get(this.src.slice(this.i, this.i + len));
      if (op !== undefined) {
        this.i += len;
        this.col += len;
        return this.tokenAt(op, pos, start);
      }
    }
    if (c === "!") this.error(pos, "unexpected input character '!'");
    if (SINGLE.has(c)) {
      this.read();
      return this.tokenAt(c as Token, pos, start);
    }
    return this.error(
      this.pos,
      `unexpected input character '${this.peekCodePoint()}'`,
    );
  }

  /** Length of a string prefix (r, b, rb; f, rf, fr with the extension) at the current
   * position that is directly followed by a quote, or 0. */
  private stringPrefixLength(): number {
    const src = this.src;
    const i = this.i;
    for (let n = 1; n <= 2; n++) {
      const q = src.charCodeAt(i + n);
      if (q === 0x22 || q === 0x27)
        return STRING_PREFIXES.has(src.slice(i, i + n)) ? n : 0;
      if (!PREFIX_LETTERS.has(src[i + n] ?? "")) return 0;
    }
    return 0;
  }

  private identOrPrefixedString(pos: Pos, start: number): TokenValue {
    const pre = PREFIX_LETTERS.has(this.peek()) ? this.stringPrefixLength() : 0;
    if (
      pre > 0 &&
      (this.fstrings || !this.src.slice(this.i, this.i + pre).includes("f"))
    ) {
      for (let k = 0; k < pre; k++) this.read();
      return this.string(pos, start);
    }
    this.identChars();
    const raw = this.src.slice(start, this.i);
    const kw = KEYWORD_TOKENS.get(raw);
    return {
      tok: kw ?? "IDENT",
      pos,
      raw,
      value: kw === undefined ? raw : null,
    };
  }

  private identChars(): void {
    const src = this.src;
    for (;;) {
      const code = src.charCodeAt(this.i);
      if (code < 0x80 && ASCII_IDENT[code] === 1) {
        this.i++;
        this.col++;
      } else if (code >= 0x80 && isIdent(this.peekCodePoint())) {
        this.read();
      } else {
        return;
      }
    }
  }

  private stringBody(pos: Pos, quote: string, triple: boolean): void {
    let quotes = 0;
    for (;;) {
      if (this.i >= this.src.length)
        this.error(pos, "unexpected EOF in string");
      const c = this.read();
      if (c === quote) {
        quotes++;
        if (!triple || quotes === 3) return;
      } else {
        quotes = 0;
      }
      if (c === "\n" && !triple)
        this.error(pos, "unexpected newline in string");
      if (c === "\\") {
        if (this.i >= this.src.length)
          this.error(pos, "unexpected EOF in string");
        this.read();
      }
    }
  }

  private string(pos: Pos, start: number): TokenValue {
    const quoteStart = this.pos;
    const quote = this.peek();
    const triple = this.peek(1) === quote && this.peek(2) === quote;
    this.read();
    if (triple) {
      this.read();
      this.read();
    }
    this.stringBody(pos, quote, triple);
    const raw = this.src.slice(start, this.i);
    try {
      const u = unquote(raw);
      if (u.isFString) return { tok: "FSTRING", pos, raw, value: raw };
      if (u.isBytes) return { tok: "BYTES", pos, raw, value: u.bytes };
      return { tok: "STRING", pos, raw, value: u.text };
    } catch (err) {
      if (err instanceof QuoteError) this.error(quoteStart, err.message);
      throw err;
    }
  }

  private digits(pred: (c: string) => boolean): void {
    while (pred(this.peek())) this.read();
  }

  private number(pos: Pos, start: number): TokenValue {
    if (this.peek() === "." && !isDigit(this.peek(1))) {
      this.read();
      return this.tokenAt(".", pos, start);
    }
    const mantissa = this.integerPart(pos, start);
    if (mantissa === null) return this.intToken(pos, start);
    let { exponent } = mantissa;
    if (mantissa.fraction) {
      this.read();
      this.digits(isDigit);
      const c = this.peek();
      exponent = c === "e" || c === "E";
    }
    if (exponent) this.exponent();
    if (mantissa.fraction || exponent) return this.floatToken(pos, start);
    return this.intToken(pos, start);
  }

  /** Scans the digits before any fraction; null for a complete 0x/0o/0b literal. */
  private integerPart(
    pos: Pos,
    start: number,
  ): { fraction: boolean; exponent: boolean } | null {
    const c = this.peek();
    if (c === ".") return { fraction: true, exponent: false };
    if (c === "0") {
      this.read();
      return this.radixInt(this.peek(), pos) ? null : this.leadingZero(start);
    }
    this.digits(isDigit);
    const d = this.peek();
    return { fraction: d === ".", exponent: d === "e" || d === "E" };
  }

  /** After a leading "0": scans 0x/0o/0b literals; returns false if it is not one. */
  private radixInt(c: string, pos: Pos): boolean {
    const lower = c.toLowerCase();
    const kinds: Record<string, [(c: string) => boolean, string, boolean]> = {
      x: [isHex, "invalid hex literal", true],
      o: [isOctal, "invalid octal literal", false],
      b: [isBinary, "invalid binary literal", false],
    };
    const kind = kinds[lower];
    if (kind === undefined) return false;
    const [pred, msg, atStart] = kind;
    this.read();
    if (!pred(this.peek())) this.error(atStart ? pos : this.pos, msg);
    this.digits(pred);
    return true;
  }

  /** After a leading "0" that does not start 0x/0o/0b: "0", "000", "0.5", "0e1", or the
   * obsolete octal form "0755" (an error, as in Go). */
  private leadingZero(start: number): { fraction: boolean; exponent: boolean } {
    let allZeros = true;
    let octal = true;
    let c = this.peek();
    while (isDigit(c)) {
      if (c !== "0") allZeros = false;
      if (c > "7") octal = false;
      this.read();
      c = this.peek();
    }
    const fraction = c === ".";
    const exponent = c === "e" || c === "E";
    if (!fraction && !exponent && octal && !allZeros) {
      this.error(
        this.pos,
        `obsolete form of octal literal; use 0o${this.src.slice(start + 1, this.i)}`,
      );
    }
    return { fraction, exponent };
  }

  private exponent(): void {
    this.read();
    const c = this.peek();
    if (c === "+" || c === "-") {
      this.read();
      if (!isDigit(this.peek())) this.error(this.pos, "invalid float literal");
    }
    this.digits(isDigit);
  }

  private floatToken(pos: Pos, start: number): TokenValue {
    const raw = this.src.slice(start, this.i);
    const value = Number(raw);
    if (!Number.isFinite(value)) this.error(this.pos, "invalid float literal");
    return { tok: "FLOAT", pos, raw, value };
  }

  private intToken(pos: Pos, start: number): TokenValue {
    const raw = this.src.slice(start, this.i);
    const zeroLed = raw.length > 1 && raw[0] === "0" && isDigit(raw[1]!);
    // A decimal literal with a leading zero that is not all zeros ("09") is invalid, as Go's
    // base-0 ParseInt reads it as octal and fails; all zeros ("000") is zero.
    if (zeroLed && /[^0]/.test(raw)) this.error(pos, "invalid int literal");
    return { tok: "INT", pos, raw, value: zeroLed ? 0 : intValue(raw) };
  }
}

/** A number if the literal is in the safe range, else a bigint. */
function intValue(raw: string): number | bigint {
  // Up to 15 characters no literal form (decimal, 0x, 0o, 0b) can leave the safe range.
  if (raw.length <= 15) return Number(raw);
  const big = BigInt(raw);
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}
