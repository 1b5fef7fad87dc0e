// A recursive-descent LL(1) parser for Starlark, following starlark-go's syntax/parse.go
// production by production, so that it accepts the same language and reports the same
// messages ("got X, want Y") at the same positions: the conformance suite matches them.
//
// Some checks starlark-go leaves to the resolver (argument and parameter order, assignment
// targets, duplicate names) are left to our resolver too. Messages for Python habits get a hint
// appended (see hints.ts). The f-string extension is parsed here: each `{...}` field is parsed
// by a nested parser over the field's text, with positions mapped back into the file.

import type {
  AssignOp,
  BinaryOp,
  CallArg,
  CompClause,
  DictEntry,
  Expr,
  File,
  FileOptions,
  FString,
  Function,
  Ident,
  If,
  Literal,
  Load,
  Param,
  Pos,
  Stmt,
  StringLiteral,
  UnaryOp,
} from "./ast.js";
import { FStringParser } from "./fstring.js";
import {
  ANNOTATION_HINT,
  CHAINED_COMPARISON_HINT,
  DOUBLE_STARRED_HINT,
  LOOP_ELSE_HINT,
  STARRED_HINT,
  tokenHint,
  VARIABLE_ANNOTATION_HINT,
} from "./hints.js";
import { Scanner, type TokenValue } from "./scanner.js";
import { describeToken, type Token, tokenName } from "./tokens.js";

export const DEFAULT_OPTIONS: FileOptions = {
  set: false,
  while: false,
  toplevelcontrol: false,
  globalreassign: false,
  recursion: false,
  loadbindsglobally: false,
  fstrings: false,
};

/** Every dialect option on (what code mode and the smoke tests use). */
export const ALL_OPTIONS: FileOptions = {
  set: true,
  while: true,
  toplevelcontrol: true,
  globalreassign: true,
  recursion: true,
  loadbindsglobally: false,
  fstrings: true,
};

const ASSIGN_OPS: ReadonlySet<Token> = new Set<Token>([
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "//=",
  "%=",
  "&=",
  "|=",
  "^=",
  "<<=",
  ">>=",
]);

/** Binary operator precedence levels, lowest first (starlark-go's preclevels). */
const PRECLEVELS: readonly (readonly Token[])[] = [
  ["or"],
  ["and"],
  ["not"],
  ["==", "!=", "<", ">", "<=", ">=", "in", "not in"],
  ["|"],
  ["^"],
  ["&"],
  ["<<", ">>"],
  ["-", "+"],
  ["*", "%", "/", "//"],
];
const PRECEDENCE: ReadonlyMap<Token, number> = new Map(
  PRECLEVELS.flatMap((toks, level) => toks.map((t) => [t, level] as const)),
);
const NOT_PREC = PRECEDENCE.get("not")!;
const CMP_PREC = PRECEDENCE.get("==")!;

function terminatesExprList(tok: Token): boolean {
  return (
    tok === "EOF" ||
    tok === "NEWLINE" ||
    tok === "=" ||
    tok === "}" ||
    tok === "]" ||
    tok === ")" ||
    tok === ";"
  );
}

function newFunction(
  pos: Pos,
  name: string,
  params: Param[],
  body: Stmt[],
): Function {
  return {
    pos,
    name,
    params,
    body,
    locals: [],
    freevars: [],
    hasVarargs: false,
    hasKwargs: false,
    numKwonlyParams: 0,
    numParams: 0,
  };
}

function ident(pos: Pos, name: string): Ident {
  return { kind: "Ident", pos, name, binding: null };
}

interface ParserInit {
  filename: string;
  src: string;
  options: FileOptions;
  start?: Pos;
}

export class Parser {
  private readonly sc: Scanner;
  private current: Token = "ILLEGAL";
  private tv: TokenValue = {
    tok: "ILLEGAL",
    pos: { line: 0, col: 0 },
    raw: "",
    value: null,
  };
  readonly filename: string;
  readonly options: FileOptions;

  constructor(init: ParserInit) {
    this.filename = init.filename;
    this.options = init.options;
    this.sc = new Scanner(
      init.filename,
      init.src,
      init.options.fstrings,
      init.start,
    );
    this.nextToken();
  }

  /** The lookahead token (a method, so that TypeScript does not narrow it across calls). */
  private tok(): Token {
    return this.current;
  }

  /** Advances to the next token and returns the position of the previous one. */
  private nextToken(): Pos {
    const old = this.tv.pos;
    this.tv = this.sc.next();
    this.current = this.tv.tok;
    return old;
  }

  private error(pos: Pos, msg: string): never {
    return this.sc.error(pos, msg);
  }

  /** A "got X, ..." error about the current token, with a Python-habit hint if one applies. */
  private errorGot(pos: Pos, msg: string): never {
    const operand = msg.includes("want primary");
    const tok = this.tok();
    const hint =
      operand && tok === "*"
        ? STARRED_HINT
        : operand && tok === "**"
          ? DOUBLE_STARRED_HINT
          : tokenHint(tok);
    return this.error(pos, msg + hint);
  }

  /** Consumes a token of kind t. `hint` replaces the usual hint when the lookahead is
   * `hint[0]` (for habits that only the context reveals, like type annotations). */
  private consume(t: Token, hint?: readonly [Token, string]): Pos {
    const tok = this.tok();
    if (tok !== t) {
      const msg = `got ${describeToken(tok)}, want ${describeToken(t)}`;
      if (hint?.[0] === tok) this.error(this.sc.pos, msg + hint[1]);
      this.errorGot(this.sc.pos, msg);
    }
    return this.nextToken();
  }

  /** Python's for/else and while/else: Go reports the `else` as a bad primary expression. */
  private rejectLoopElse(): void {
    if (this.tok() === "else") {
      this.error(
        this.tv.pos,
        `got else, want primary expression${LOOP_ELSE_HINT}`,
      );
    }
  }

  // file_input = (NEWLINE | stmt)* EOF
  parseFile(): File {
    const stmts: Stmt[] = [];
    while (this.tok() !== "EOF") {
      if (this.tok() === "NEWLINE") {
        this.nextToken();
        continue;
      }
      this.parseStmt(stmts);
    }
    return {
      kind: "File",
      pos: { line: 1, col: 1 },
      path: this.filename,
      stmts,
      options: this.options,
      globals: [],
      locals: [],
    };
  }

  /** Parses a whole input as one expression (a comma list makes a tuple), then EOF. */
  parseExprOnly(): Expr {
    const x = this.parseExpr(false);
    if (this.tok() === "NEWLINE") this.nextToken();
    if (this.tok() !== "EOF")
      this.errorGot(
        this.sc.pos,
        `got ${describeToken(this.tok())} after expression, want EOF`,
      );
    return x;
  }

  private parseStmt(stmts: Stmt[]): void {
    switch (this.tok()) {
      case "def":
        stmts.push(this.parseDefStmt());
        return;
      case "if":
        stmts.push(this.parseIfStmt());
        return;
      case "for":
        stmts.push(this.parseForStmt());
        return;
      case "while":
        stmts.push(this.parseWhileStmt());
        return;
      default:
        this.parseSimpleStmt(stmts);
    }
  }

  private parseDefStmt(): Stmt {
    const pos = this.nextToken();
    const name = this.parseIdent();
    this.consume("(");
    const params = this.parseParams();
    this.consume(")", [":", ANNOTATION_HINT]);
    this.consume(":", ["-", ANNOTATION_HINT]);
    const body = this.parseSuite();
    return {
      kind: "Def",
      pos,
      name,
      function: newFunction(pos, name.name, params, body),
    };
  }

  private parseIfStmt(): Stmt {
    const pos = this.nextToken();
    const cond = this.parseTest();
    this.consume(":");
    const trueBody = this.parseSuite();
    const root: {
      cond: Expr;
      trueBody: Stmt[];
      pos: Pos;
      falseBody: Stmt[];
      elsePos: Pos | null;
    } = {
      pos,
      cond,
      trueBody,
      falseBody: [],
      elsePos: null,
    };
    // Build the elif chain as nested Ifs, innermost last.
    const chain = [root];
    while (this.tok() === "elif") {
      const elifPos = this.nextToken();
      const c = this.parseTest();
      this.consume(":");
      const body = this.parseSuite();
      chain[chain.length - 1]!.elsePos = elifPos;
      chain.push({
        pos: elifPos,
        cond: c,
        trueBody: body,
        falseBody: [],
        elsePos: null,
      });
    }
    if (this.tok() === "else") {
      chain[chain.length - 1]!.elsePos = this.nextToken();
      this.consume(":");
      chain[chain.length - 1]!.falseBody = this.parseSuite();
    }
    let node: If | null = null;
    for (let i = chain.length - 1; i >= 0; i--) {
      const c = chain[i]!;
      node = {
        kind: "If",
        pos: c.pos,
        cond: c.cond,
        trueBody: c.trueBody,
        falseBody: node === null ? c.falseBody : [node],
        elsePos: c.elsePos,
      };
    }
    return node!;
  }

  private parseForStmt(): Stmt {
    const pos = this.nextToken();
    const vars = this.parseForLoopVariables();
    this.consume("in");
    const x = this.parseExpr(false);
    this.consume(":");
    const body = this.parseSuite();
    this.rejectLoopElse();
    return { kind: "For", pos, vars, x, body };
  }

  private parseWhileStmt(): Stmt {
    const pos = this.nextToken();
    const cond = this.parseTest();
    this.consume(":");
    const body = this.parseSuite();
    this.rejectLoopElse();
    return { kind: "While", pos, cond, body };
  }

  // loop_variables = primary_with_suffix (COMMA primary_with_suffix)* COMMA?
  private parseForLoopVariables(): Expr {
    const v = this.parsePrimaryWithSuffix();
    if (this.tok() !== ",") return v;
    const elems = [v];
    while (this.tok() === ",") {
      this.nextToken();
      if (terminatesExprList(this.tok())) break;
      elems.push(this.parsePrimaryWithSuffix());
    }
    return { kind: "Tuple", pos: v.pos, elems };
  }

  // simple_stmt = small_stmt (SEMI small_stmt)* SEMI? NEWLINE
  private parseSimpleStmt(stmts: Stmt[]): Stmt[] {
    for (;;) {
      stmts.push(this.parseSmallStmt());
      if (this.tok() !== ";") break;
      this.nextToken();
      if (this.tok() === "NEWLINE" || this.tok() === "EOF") break;
    }
    if (this.tok() !== "EOF")
      this.consume("NEWLINE", [":", VARIABLE_ANNOTATION_HINT]);
    return stmts;
  }

  private parseSmallStmt(): Stmt {
    switch (this.tok()) {
      case "return": {
        const pos = this.nextToken();
        const result =
          this.tok() !== "EOF" && this.tok() !== "NEWLINE" && this.tok() !== ";"
            ? this.parseExpr(false)
            : null;
        return { kind: "Return", pos, result };
      }
      case "break":
      case "continue":
      case "pass": {
        const token = this.tok() as "break" | "continue" | "pass";
        const pos = this.nextToken();
        return { kind: "Branch", pos, token };
      }
      case "load":
        return this.parseLoadStmt();
    }
    const x = this.parseExpr(false);
    if (ASSIGN_OPS.has(this.tok())) {
      const op = this.tok() as AssignOp;
      const opPos = this.nextToken();
      const rhs = this.parseExpr(false);
      return { kind: "Assign", pos: x.pos, opPos, op, lhs: x, rhs };
    }
    return { kind: "ExprStmt", pos: x.pos, x };
  }

  private loadName(lit: StringLiteral): Ident {
    return ident({ line: lit.pos.line, col: lit.pos.col + 1 }, lit.value);
  }

  // stmt = LOAD '(' STRING {',' (IDENT '=')? STRING} [','] ')'
  private parseLoadStmt(): Load {
    const pos = this.nextToken();
    const lparen = this.consume("(");
    if (this.tok() !== "STRING")
      this.error(
        this.sc.pos,
        "first operand of load statement must be a string literal",
      );
    const module = this.parsePrimary() as StringLiteral;
    const from: Ident[] = [];
    const to: Ident[] = [];
    while (this.tok() !== ")" && this.tok() !== "EOF") {
      this.consume(",");
      if (this.tok() === ")") break;
      this.parseLoadOperand(from, to);
    }
    const rparen = this.consume(")");
    if (to.length === 0)
      this.error(lparen, "load statement must import at least 1 symbol");
    return { kind: "Load", pos, module, from, to, rparen };
  }

  private parseLoadOperand(from: Ident[], to: Ident[]): void {
    if (this.tok() === "STRING") {
      const id = this.loadName(this.parsePrimary() as StringLiteral);
      to.push(id);
      from.push(ident(id.pos, id.name));
      return;
    }
    if (this.tok() === "IDENT") {
      const id = this.parseIdent();
      to.push(id);
      if (this.tok() !== "=") {
        this.error(
          this.sc.pos,
          `load operand must be "${id.name}" or ${id.name}="originalname" (want '=' after ${id.name})`,
        );
      }
      this.consume("=");
      if (this.tok() !== "STRING") {
        this.error(
          this.sc.pos,
          `original name of loaded symbol must be quoted: ${id.name}="originalname"`,
        );
      }
      from.push(this.loadName(this.parsePrimary() as StringLiteral));
      return;
    }
    this.errorGot(
      this.sc.pos,
      `load operand must be "name" or localname="name" (got ${describeToken(this.tok())})`,
    );
  }

  // suite = simple_stmt | NEWLINE INDENT stmt+ OUTDENT
  private parseSuite(): Stmt[] {
    if (this.tok() === "NEWLINE") {
      this.nextToken();
      this.consume("INDENT");
      const stmts: Stmt[] = [];
      while (this.tok() !== "OUTDENT" && this.tok() !== "EOF")
        this.parseStmt(stmts);
      this.consume("OUTDENT");
      return stmts;
    }
    return this.parseSimpleStmt([]);
  }

  private parseIdent(): Ident {
    if (this.tok() !== "IDENT") this.errorGot(this.sc.pos, "not an identifier");
    const id = ident(this.tv.pos, this.tv.raw);
    this.nextToken();
    return id;
  }

  // params = (param COMMA)* param COMMA?
  private parseParams(): Param[] {
    const params: Param[] = [];
    while (this.tok() !== ")" && this.tok() !== ":" && this.tok() !== "EOF") {
      if (params.length > 0) this.consume(",");
      if (this.tok() === ")") break;
      params.push(this.parseParam());
    }
    return params;
  }

  private parseParam(): Param {
    if (this.tok() === "*" || this.tok() === "**") {
      const op = this.tok();
      const pos = this.nextToken();
      if (op === "**")
        return { kind: "StarStarParam", pos, name: this.parseIdent() };
      return {
        kind: "StarParam",
        pos,
        name: this.tok() === "IDENT" ? this.parseIdent() : null,
      };
    }
    const name = this.parseIdent();
    if (this.tok() === "=") {
      const eqPos = this.nextToken();
      return {
        kind: "NamedParam",
        pos: name.pos,
        name,
        default: this.parseTest(),
        eqPos,
      };
    }
    return {
      kind: "NamedParam",
      pos: name.pos,
      name,
      default: null,
      eqPos: null,
    };
  }

  /** An expression, possibly a comma-separated list of tests (a tuple). */
  private parseExpr(inParens: boolean): Expr {
    const x = this.parseTest();
    if (this.tok() !== ",") return x;
    return { kind: "Tuple", pos: x.pos, elems: this.parseExprs([x], inParens) };
  }

  // expr_list = (',' expr)* ','?
  private parseExprs(exprs: Expr[], allowTrailingComma: boolean): Expr[] {
    while (this.tok() === ",") {
      const pos = this.nextToken();
      if (terminatesExprList(this.tok())) {
        if (!allowTrailingComma)
          this.error(pos, "unparenthesized tuple with trailing comma");
        break;
      }
      exprs.push(this.parseTest());
    }
    return exprs;
  }

  private parseTest(): Expr {
    if (this.tok() === "lambda") return this.parseLambda(true);
    const x = this.parseTestPrec(0);
    if (this.tok() === "if") {
      const ifPos = this.nextToken();
      const cond = this.parseTestPrec(0);
      if (this.tok() !== "else")
        this.error(ifPos, "conditional expression without else clause");
      this.nextToken();
      const f = this.parseTest();
      return { kind: "Cond", pos: x.pos, ifPos, cond, t: x, f };
    }
    return x;
  }

  private parseTestNoCond(): Expr {
    if (this.tok() === "lambda") return this.parseLambda(false);
    return this.parseTestPrec(0);
  }

  private parseLambda(allowCond: boolean): Expr {
    const pos = this.nextToken();
    const params = this.tok() !== ":" ? this.parseParams() : [];
    this.consume(":");
    const body = allowCond ? this.parseTest() : this.parseTestNoCond();
    const ret: Stmt = { kind: "Return", pos: body.pos, result: body };
    return {
      kind: "Lambda",
      pos,
      body,
      function: newFunction(pos, "lambda", params, [ret]),
    };
  }

  // Precedence climbing, equivalent to starlark-go's one-function-per-level descent but without
  // descending through every level for each operand. `not` is a prefix operator at its own level.
  private parseTestPrec(prec: number): Expr {
    if (this.tok() === "not" && prec <= NOT_PREC) {
      const pos = this.nextToken();
      const x = this.parseTestPrec(NOT_PREC);
      return this.parseBinopRest(
        { kind: "Unary", pos, opPos: pos, op: "not", x },
        prec,
      );
    }
    return this.parseBinopRest(this.parsePrimaryWithSuffix(), prec);
  }

  /** Continues x with binary operators of precedence >= prec; comparisons do not associate. */
  private parseBinopRest(first: Expr, prec: number): Expr {
    let x = first;
    let lastWasComparison = false;
    for (;;) {
      if (this.tok() === "not") {
        this.nextToken();
        if (this.tok() !== "in")
          this.errorGot(
            this.sc.pos,
            `got ${describeToken(this.tok())}, want in`,
          );
        this.current = "not in";
      }
      const opprec = PRECEDENCE.get(this.tok()) ?? -1;
      if (opprec < prec) return x;
      if (lastWasComparison && opprec === CMP_PREC && x.kind === "Binary") {
        this.error(
          this.sc.pos,
          `${tokenName(x.op)} does not associate with ${tokenName(this.tok())} (use parens)${CHAINED_COMPARISON_HINT}`,
        );
      }
      const op = this.tok() as BinaryOp;
      const opPos = this.nextToken();
      const y = this.parseTestPrec(opprec + 1);
      x = { kind: "Binary", pos: x.pos, opPos, op, x, y };
      lastWasComparison = opprec === CMP_PREC;
    }
  }

  private parsePrimaryWithSuffix(): Expr {
    let x = this.parsePrimary();
    for (;;) {
      switch (this.tok()) {
        case ".": {
          const dotPos = this.nextToken();
          const id = this.parseIdent();
          x = {
            kind: "Dot",
            pos: x.pos,
            x,
            dotPos,
            namePos: id.pos,
            name: id.name,
          };
          break;
        }
        case "[":
          x = this.parseSliceSuffix(x);
          break;
        case "(":
          x = this.parseCallSuffix(x);
          break;
        default:
          return x;
      }
    }
  }

  // slice_suffix = '[' expr? ':' expr?  ':' expr? ']'
  private parseSliceSuffix(x: Expr): Expr {
    const lbrack = this.nextToken();
    let lo: Expr | null = null;
    let hi: Expr | null = null;
    let step: Expr | null = null;
    if (this.tok() !== ":") {
      const y = this.parseExpr(false);
      if (this.tok() === "]") {
        this.nextToken();
        return { kind: "Index", pos: x.pos, x, lbrack, y };
      }
      lo = y;
    }
    if (this.tok() === ":") {
      this.nextToken();
      if (this.tok() !== ":" && this.tok() !== "]") hi = this.parseTest();
    }
    if (this.tok() === ":") {
      this.nextToken();
      if (this.tok() !== "]") step = this.parseTest();
    }
    this.consume("]");
    return { kind: "Slice", pos: x.pos, x, lbrack, lo, hi, step };
  }

  // call_suffix = '(' arg_list? ')'
  private parseCallSuffix(fn: Expr): Expr {
    const lparen = this.consume("(");
    let args: CallArg[] = [];
    let rparen: Pos;
    if (this.tok() === ")") {
      rparen = this.nextToken();
    } else {
      args = this.parseArgs();
      rparen = this.consume(")");
    }
    return { kind: "Call", pos: fn.pos, fn, lparen, args, rparen };
  }

  // arg_list = ((arg COMMA)* arg COMMA?)?
  private parseArgs(): CallArg[] {
    const args: CallArg[] = [];
    while (this.tok() !== ")" && this.tok() !== "EOF") {
      if (args.length > 0) this.consume(",");
      if (this.tok() === ")") break;
      args.push(this.parseArg());
    }
    return args;
  }

  private parseArg(): CallArg {
    if (this.tok() === "*" || this.tok() === "**") {
      const op = this.tok();
      const pos = this.nextToken();
      const value = this.parseTest();
      return op === "*"
        ? { kind: "StarArg", pos, value }
        : { kind: "StarStarArg", pos, value };
    }
    // Parse 'test = test' and then check that the first was an identifier (stays LL(1)).
    const x = this.parseTest();
    if (this.tok() === "=") {
      if (x.kind !== "Ident")
        this.error(this.sc.pos, "keyword argument must have form name=expr");
      this.nextToken();
      const value = this.parseTest();
      return { kind: "KeywordArg", pos: x.pos, name: x.name, value };
    }
    return { kind: "PositionalArg", pos: x.pos, value: x };
  }

  private parsePrimary(): Expr {
    const parse = this.primaryParsers[this.tok()];
    if (parse !== undefined) return parse();
    // Report the start of the offending token, as it may be a NEWLINE (starlark-go #532).
    return this.errorGot(
      this.tv.pos,
      `got ${describeToken(this.tok())}, want primary expression`,
    );
  }

  private readonly primaryParsers: Partial<Record<Token, () => Expr>> = {
    IDENT: () => this.parseIdent(),
    INT: () => this.parseLiteral(),
    FLOAT: () => this.parseLiteral(),
    STRING: () => this.parseLiteral(),
    BYTES: () => this.parseLiteral(),
    FSTRING: () => this.parseFString(),
    "[": () => this.parseList(),
    "{": () => this.parseDict(),
    "(": () => this.parseParen(),
    "-": () => this.parseUnary(),
    "+": () => this.parseUnary(),
    "~": () => this.parseUnary(),
  };

  private parseUnary(): Expr {
    const op = this.tok() as UnaryOp;
    const pos = this.nextToken();
    const x = this.parsePrimaryWithSuffix();
    return { kind: "Unary", pos, opPos: pos, op, x };
  }

  private parseLiteral(): Literal {
    const { tok, raw, value } = this.tv;
    const pos = this.nextToken();
    switch (tok) {
      case "INT":
        return {
          kind: "Literal",
          token: "int",
          pos,
          raw,
          value: value as number | bigint,
        };
      case "FLOAT":
        return {
          kind: "Literal",
          token: "float",
          pos,
          raw,
          value: value as number,
        };
      case "BYTES":
        return {
          kind: "Literal",
          token: "bytes",
          pos,
          raw,
          value: value as Uint8Array,
        };
      default:
        return {
          kind: "Literal",
          token: "string",
          pos,
          raw,
          value: value as string,
        };
    }
  }

  private parseParen(): Expr {
    const lparen = this.nextToken();
    if (this.tok() === ")") {
      this.nextToken();
      return { kind: "Tuple", pos: lparen, elems: [] };
    }
    const x = this.parseExpr(true);
    this.consume(")");
    return { kind: "Paren", pos: lparen, x };
  }

  private parseList(): Expr {
    const lbrack = this.nextToken();
    if (this.tok() === "]") {
      this.nextToken();
      return { kind: "List", pos: lbrack, elems: [] };
    }
    const x = this.parseTest();
    if (this.tok() === "for") {
      const clauses = this.parseComprehensionSuffix("]");
      return { kind: "ListComp", pos: lbrack, body: x, clauses };
    }
    const elems = [x];
    if (this.tok() === ",") this.parseExprs(elems, true);
    this.consume("]");
    return { kind: "List", pos: lbrack, elems };
  }

  private parseDict(): Expr {
    const lbrace = this.nextToken();
    if (this.tok() === "}") {
      this.nextToken();
      return { kind: "Dict", pos: lbrace, entries: [] };
    }
    const x = this.parseDictEntry();
    if (this.tok() === "for") {
      const clauses = this.parseComprehensionSuffix("}");
      return { kind: "DictComp", pos: lbrace, entry: x, clauses };
    }
    const entries = [x];
    while (this.tok() === ",") {
      this.nextToken();
      if (this.tok() === "}") break;
      entries.push(this.parseDictEntry());
    }
    this.consume("}");
    return { kind: "Dict", pos: lbrace, entries };
  }

  private parseDictEntry(): DictEntry {
    const key = this.parseTest();
    this.consume(":");
    const value = this.parseTest();
    return { kind: "DictEntry", pos: key.pos, key, value };
  }

  // comp_suffix = FOR loopvars IN expr comp_suffix | IF expr comp_suffix | ']' or '}'
  private parseComprehensionSuffix(end: "]" | "}"): CompClause[] {
    const clauses: CompClause[] = [];
    while (this.tok() !== end) {
      if (this.tok() === "for") {
        const pos = this.nextToken();
        const vars = this.parseForLoopVariables();
        this.consume("in");
        // As in Python 3, the operand of `in` may not be a conditional, a lambda or an
        // unparenthesized tuple.
        const x = this.parseTestPrec(0);
        clauses.push({ kind: "ForClause", pos, vars, x });
      } else if (this.tok() === "if") {
        const pos = this.nextToken();
        clauses.push({ kind: "IfClause", pos, cond: this.parseTestNoCond() });
      } else {
        this.errorGot(
          this.sc.pos,
          `got ${describeToken(this.tok())}, want '${end}', for, or if`,
        );
      }
    }
    this.nextToken();
    return clauses;
  }

  // ---------------------------------------------------------------------------------------
  // f-strings (extension)

  private parseFString(): FString {
    const { raw, pos } = this.tv;
    this.nextToken();
    return new FStringParser(this, raw, pos).parse();
  }

  /** Parses the text of one f-string field as an expression, positioned at `start`. */
  parseField(text: string, start: Pos): Expr {
    // Parenthesise so that newlines and leading blanks inside the field are insignificant.
    const sub = new Parser({
      filename: this.filename,
      src: `(${text})`,
      options: this.options,
      start: { line: start.line, col: start.col - 1 },
    });
    const x = sub.parseExprOnly();
    return x.kind === "Paren" ? x.x : x;
  }

  fail(pos: Pos, msg: string): never {
    return this.error(pos, msg);
  }
}

/** Parses a Starlark file. Throws StarlarkSyntaxError (with `pos` and `msg`) on the first error. */
export function parse(
  filename: string,
  src: string,
  options: Partial<FileOptions> = {},
): File {
  const p = new Parser({
    filename,
    src,
    options: { ...DEFAULT_OPTIONS, ...options },
  });
  return p.parseFile();
}

/** Parses a single expression (a comma list is a tuple). */
export function parseExpr(
  filename: string,
  src: string,
  options: Partial<FileOptions> = {},
): Expr {
  const p = new Parser({
    filename,
    src,
    options: { ...DEFAULT_OPTIONS, ...options },
  });
  return p.parseExprOnly();
}
