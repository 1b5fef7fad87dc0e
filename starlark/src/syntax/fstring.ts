// The f-string extension: f"text {expr!r:spec} text". The literal's body is split into text
// (escapes decoded as in ordinary strings, `{{` and `}}` standing for braces) and fields; each
// field's expression is parsed by a nested parser over the field's text (see
// Parser.parseField), with positions mapped back into the file. Python's `{x = }` form renders
// "x = " followed by repr(x).

import type { Expr, FString, FStringField, Pos } from "./ast.js";
import { decodeText, literalBody } from "./quote.js";

/** What the f-string parser needs from the enclosing parser. */
export interface FieldParser {
  parseField(text: string, start: Pos): Expr;
  fail(pos: Pos, msg: string): never;
}

const OPEN_BRACKETS: ReadonlySet<string> = new Set(["(", "[", "{"]);
const CLOSE_BRACKETS: ReadonlySet<string> = new Set([")", "]", "}"]);

const isFieldEnd = (b: string, i: number): boolean => {
  const c = b[i];
  return c === "}" || c === ":" || (c === "!" && b[i + 1] !== "=");
};

/** Splits an f-string literal into text and `{expr[!r|!s][:spec]}` fields. */
export class FStringParser {
  private readonly body: string;
  private readonly isRaw: boolean;
  private readonly bodyStart: number;
  private readonly parts: (string | FStringField)[] = [];
  private text = "";

  constructor(
    private readonly p: FieldParser,
    private readonly raw: string,
    private readonly pos: Pos,
  ) {
    const lb = literalBody(raw);
    this.body = lb.body;
    this.isRaw = lb.raw;
    this.bodyStart = lb.prefixLen + lb.quoteLen;
  }

  /** Source position of body offset i (the literal may span lines if triple-quoted). */
  private posAt(i: number): Pos {
    const before = this.raw.slice(0, this.bodyStart + i);
    const nl = before.lastIndexOf("\n");
    if (nl < 0)
      return { line: this.pos.line, col: this.pos.col + [...before].length };
    const lines = before.split("\n").length - 1;
    return {
      line: this.pos.line + lines,
      col: 1 + [...before.slice(nl + 1)].length,
    };
  }

  private flushText(): void {
    if (this.text !== "") this.parts.push(decodeText(this.text, this.isRaw));
    this.text = "";
  }

  parse(): FString {
    const b = this.body;
    let i = 0;
    while (i < b.length) {
      const c = b[i]!;
      if ((c === "{" || c === "}") && b[i + 1] === c) {
        this.text += c;
        i += 2;
      } else if (c === "}") {
        this.p.fail(this.posAt(i), "f-string: single '}' is not allowed");
      } else if (c === "{") {
        this.flushText();
        i = this.field(i + 1);
      } else if (c === "\\" && !this.isRaw && i + 1 < b.length) {
        this.text += b.slice(i, i + 2);
        i += 2;
      } else {
        this.text += c;
        i++;
      }
    }
    this.flushText();
    return { kind: "FString", pos: this.pos, raw: this.raw, parts: this.parts };
  }

  /** Finds the end of the field's expression: the first `}`, `!` (not `!=`) or `:` outside
   * brackets and string quotes. */
  private exprEnd(start: number): number {
    const b = this.body;
    let depth = 0;
    for (let i = start; i < b.length; i++) {
      const c = b[i]!;
      if (c === "'" || c === '"') {
        i = this.skipQuoted(i);
      } else if (OPEN_BRACKETS.has(c)) {
        depth++;
      } else if (depth > 0 && CLOSE_BRACKETS.has(c)) {
        depth--;
      } else if (depth === 0 && isFieldEnd(b, i)) {
        return i;
      }
    }
    return this.p.fail(this.posAt(start - 1), "f-string: expecting '}'");
  }

  /** Returns the index of the quote closing the one at i (or the end of the body). */
  private skipQuoted(i: number): number {
    const close = this.body.indexOf(this.body[i]!, i + 1);
    return close < 0 ? this.body.length : close;
  }

  private field(start: number): number {
    const b = this.body;
    const end = this.exprEnd(start);
    let exprText = b.slice(start, end);
    // Python's self-documenting form f"{x = }" renders as "x = " followed by repr(x).
    const selfDoc = /[^=!<>]=\s*$/.test(exprText);
    if (selfDoc) {
      this.text += exprText;
      this.flushText();
      exprText = exprText.slice(0, exprText.lastIndexOf("="));
    }
    if (exprText.trim() === "")
      this.p.fail(this.posAt(start), "f-string: empty expression not allowed");
    const expr = this.p.parseField(exprText, this.posAt(start));
    const conv = this.conversion(end);
    const { spec, next } = this.spec(conv.next, start);
    if (b[next] !== "}")
      this.p.fail(this.posAt(next), "f-string: expecting '}'");
    const conversion =
      conv.conversion ?? (selfDoc && spec === null ? "r" : null);
    this.parts.push({
      kind: "FStringField",
      pos: this.posAt(start - 1),
      expr,
      conversion,
      spec,
    });
    return next + 1;
  }

  /** An optional `!s` / `!r` at i. */
  private conversion(i: number): {
    conversion: "s" | "r" | null;
    next: number;
  } {
    if (this.body[i] !== "!") return { conversion: null, next: i };
    const conv = this.body[i + 1];
    if (conv !== "s" && conv !== "r") {
      this.p.fail(
        this.posAt(i),
        "f-string: invalid conversion character: expected 's' or 'r'",
      );
    }
    return { conversion: conv, next: i + 2 };
  }

  /** An optional `:spec` at i, up to the closing brace. */
  private spec(
    i: number,
    fieldStart: number,
  ): { spec: string | null; next: number } {
    const b = this.body;
    if (b[i] !== ":") return { spec: null, next: i };
    const close = b.indexOf("}", i + 1);
    if (close < 0)
      this.p.fail(this.posAt(fieldStart - 1), "f-string: expecting '}'");
    const spec = b.slice(i + 1, close);
    if (spec.includes("{"))
      this.p.fail(
        this.posAt(i),
        "f-string: nested replacement fields are not supported",
      );
    return { spec, next: close };
  }
}
