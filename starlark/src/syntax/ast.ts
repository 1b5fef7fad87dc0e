// The Starlark syntax tree, modelled on starlark-go's syntax/syntax.go, plus the annotations
// the resolver writes into it (resolve/binding.go there).
//
// CONTRACT for the evaluator (what it may rely on once `parse` and then `resolve` have run
// without errors):
//
// * Every node has `kind` (the discriminant) and `pos`: the 1-based line and 1-based column
//   (in code points) of the node's first character. The file name lives on `File.path` only.
//   Nodes that Go reports errors at a different place carry that place too (`opPos` of a
//   binary/unary/assign, `lparen` of a call, `lbrack` of an index/slice, `dotPos`/`namePos` of
//   a dot expression): runtime errors should use those, as starlark-go does.
// * Absent optional children are `null`, never `undefined`.
// * Int literals: `value` is a `number` when it is a safe integer, otherwise a `bigint`.
//   Float literals: `number`. String literals: a JS string of the decoded text (escapes
//   processed; `\xNN` and octal escapes above 0x7F are rejected by the scanner as starlark-go
//   does for string literals, so every string is valid Unicode). Bytes literals: `Uint8Array`.
// * `(x)` and `(x, y)` keep a `Paren` node around the inner expression; assignment targets may
//   therefore be Paren-wrapped (unwrap them). A tuple without parentheses is a bare `Tuple`.
// * Call arguments are a list of `CallArg` in source order; the resolver has checked
//   starlark-go's ordering rules (positional, then named, then *args, then **kwargs) and that
//   no keyword is repeated.
// * f-strings (only with the `fstrings` option): `FString.parts` alternates decoded text and
//   fields; a field renders as str(expr), or repr(expr) with `!r`, formatted by `spec` (the
//   Python format-spec text after `:`) when it is not null.
// * Every `Ident` that names a variable (not keyword-argument names, not `Dot` names, not the
//   `from` names of a load) gets `binding` set by the resolver. Bindings are SHARED objects:
//   the resolver may turn a "local" into a "cell" after an Ident already points at it, so read
//   `binding.scope` only after resolution has finished.
//     - "local":  `index` into the locals array of the innermost enclosing Function (or
//                 `File.locals` for top-level comprehension variables and, unless
//                 loadbindsglobally, names bound by top-level `load`).
//     - "cell":   as "local", but captured by a nested function: the slot holds a cell
//                 (a shared box) instead of the value.
//     - "free":   `index` into the enclosing Function's `freevars`; the closure's captured cell.
//     - "global": `index` into `File.globals` (one slot per module-level name).
//     - "predeclared" / "universal": look up `name` in the module's predeclared dict or the
//                 universe; `index` is 0.
// * Function (`Def.function`, `Lambda.function`):
//     - `locals[0 .. numParams)` are the parameters in this order: the named parameters
//       (positional ones, then keyword-only ones after `*`/`*args`), then `*args` if
//       `hasVarargs`, then `**kwargs` if `hasKwargs`. A bare `*` takes no slot.
//       Parameter i < numParams - (hasVarargs?1:0) - (hasKwargs?1:0) has its default in
//       `params` (the `Param` whose `name.binding === locals[i]`); `numKwonlyParams` of the
//       named ones are keyword-only (the last ones).
//     - `freevars[i]` is the binding IN THE ENCLOSING function (scope "cell" or "free", or a
//       "cell" in `File.locals` for closures made inside top-level comprehensions) whose cell
//       the closure captures at creation time; inside the function that variable is the
//       Binding {scope: "free", index: i}.
//     - `body` is the statement list; a lambda's expression body is wrapped in a `Return`.
// * `File.globals[i]` has scope "global" and index i; `File.locals` is the module's local
//   frame (comprehension temporaries, file-local load bindings).
// * Default argument expressions of a function are resolved in the ENCLOSING scope.

export interface Pos {
  readonly line: number;
  readonly col: number;
}

export type Scope =
  "local" | "cell" | "free" | "global" | "predeclared" | "universal";

export interface Binding {
  scope: Scope;
  index: number;
  readonly name: string;
  /** Where the name was first bound (for "cannot reassign ... declared at"); for
   * predeclared/universal names, the first use. */
  readonly firstPos: Pos;
}

/** Dialect options of one file, as starlark-go's syntax.FileOptions (+ the f-string extension). */
export interface FileOptions {
  /** allow references to the 'set' built-in */
  readonly set: boolean;
  /** allow 'while' statements */
  readonly while: boolean;
  /** allow if/for/while statements at top level */
  readonly toplevelcontrol: boolean;
  /** allow reassignment to top-level names */
  readonly globalreassign: boolean;
  /** allow recursion (a runtime check, carried here for the evaluator) */
  readonly recursion: boolean;
  /** load creates global, not file-local, bindings (deprecated) */
  readonly loadbindsglobally: boolean;
  /** f"..." strings with {expr} interpolation (a toolgate extension) */
  readonly fstrings: boolean;
}

// ---------------------------------------------------------------------------------------------
// File and functions

export interface File {
  readonly kind: "File";
  readonly pos: Pos;
  readonly path: string;
  readonly stmts: Stmt[];
  readonly options: FileOptions;
  /** set by the resolver: one binding per module-level name, in order of first binding */
  globals: Binding[];
  /** set by the resolver: the module's local frame */
  locals: Binding[];
}

export interface Function {
  readonly pos: Pos;
  /** the def's name, or "lambda" */
  readonly name: string;
  readonly params: Param[];
  readonly body: Stmt[];
  // Resolver annotations:
  locals: Binding[];
  freevars: Binding[];
  hasVarargs: boolean;
  hasKwargs: boolean;
  numKwonlyParams: number;
  /** number of parameter slots at the start of `locals` (see the contract above) */
  numParams: number;
}

/** `x` or `x=default` */
export interface NamedParam {
  readonly kind: "NamedParam";
  readonly pos: Pos;
  readonly name: Ident;
  readonly default: Expr | null;
  /** position of `=` (starlark-go reports some parameter errors there) */
  readonly eqPos: Pos | null;
}

/** `*args`, or a bare `*` (name null) that starts keyword-only parameters */
export interface StarParam {
  readonly kind: "StarParam";
  readonly pos: Pos;
  readonly name: Ident | null;
}

/** `**kwargs` */
export interface StarStarParam {
  readonly kind: "StarStarParam";
  readonly pos: Pos;
  readonly name: Ident;
}

export type Param = NamedParam | StarParam | StarStarParam;

// ---------------------------------------------------------------------------------------------
// Statements

export type AssignOp =
  | "="
  | "+="
  | "-="
  | "*="
  | "/="
  | "//="
  | "%="
  | "&="
  | "|="
  | "^="
  | "<<="
  | ">>=";

export interface Assign {
  readonly kind: "Assign";
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly op: AssignOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
}

export interface Def {
  readonly kind: "Def";
  readonly pos: Pos;
  readonly name: Ident;
  readonly function: Function;
}

export interface ExprStmt {
  readonly kind: "ExprStmt";
  readonly pos: Pos;
  readonly x: Expr;
}

export interface For {
  readonly kind: "For";
  readonly pos: Pos;
  readonly vars: Expr;
  readonly x: Expr;
  readonly body: Stmt[];
}

export interface While {
  readonly kind: "While";
  readonly pos: Pos;
  readonly cond: Expr;
  readonly body: Stmt[];
}

export interface If {
  readonly kind: "If";
  readonly pos: Pos;
  readonly cond: Expr;
  readonly trueBody: Stmt[];
  /** `elif` is a nested If as the only statement of falseBody */
  readonly falseBody: Stmt[];
  readonly elsePos: Pos | null;
}

export interface Load {
  readonly kind: "Load";
  readonly pos: Pos;
  readonly module: StringLiteral;
  /** names in the loaded module (not resolved; Ident for position only) */
  readonly from: Ident[];
  /** the names bound here (resolved) */
  readonly to: Ident[];
  readonly rparen: Pos;
}

export interface Return {
  readonly kind: "Return";
  readonly pos: Pos;
  readonly result: Expr | null;
}

export interface Branch {
  readonly kind: "Branch";
  readonly pos: Pos;
  readonly token: "break" | "continue" | "pass";
}

export type Stmt =
  Assign | Def | ExprStmt | For | While | If | Load | Return | Branch;

// ---------------------------------------------------------------------------------------------
// Expressions

export interface Ident {
  readonly kind: "Ident";
  readonly pos: Pos;
  readonly name: string;
  /** set by the resolver */
  binding: Binding | null;
}

export type LiteralValue = number | bigint | string | Uint8Array;

interface LiteralBase {
  readonly kind: "Literal";
  readonly pos: Pos;
  /** the literal's source text */
  readonly raw: string;
}

export interface IntLiteral extends LiteralBase {
  readonly token: "int";
  readonly value: number | bigint;
}
export interface FloatLiteral extends LiteralBase {
  readonly token: "float";
  readonly value: number;
}
export interface StringLiteral extends LiteralBase {
  readonly token: "string";
  readonly value: string;
}
export interface BytesLiteral extends LiteralBase {
  readonly token: "bytes";
  readonly value: Uint8Array;
}
export type Literal = IntLiteral | FloatLiteral | StringLiteral | BytesLiteral;

/** One `{...}` of an f-string: `{expr}`, `{expr!r}`, `{expr:spec}`. */
export interface FStringField {
  readonly kind: "FStringField";
  readonly pos: Pos;
  readonly expr: Expr;
  /** `!s` / `!r`, or null (= str) */
  readonly conversion: "s" | "r" | null;
  /** the raw format spec after `:` (Python format-spec mini-language), or null */
  readonly spec: string | null;
}

/** f"text {expr} text": `parts` alternate freely between decoded text and fields. */
export interface FString {
  readonly kind: "FString";
  readonly pos: Pos;
  readonly raw: string;
  readonly parts: (string | FStringField)[];
}

export type UnaryOp = "+" | "-" | "~" | "not";

export interface Unary {
  readonly kind: "Unary";
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly op: UnaryOp;
  readonly x: Expr;
}

export type BinaryOp =
  | "+"
  | "-"
  | "*"
  | "/"
  | "//"
  | "%"
  | "&"
  | "|"
  | "^"
  | "<<"
  | ">>"
  | "=="
  | "!="
  | "<"
  | ">"
  | "<="
  | ">="
  | "in"
  | "not in"
  | "and"
  | "or";

export interface Binary {
  readonly kind: "Binary";
  /** start of x */
  readonly pos: Pos;
  readonly opPos: Pos;
  readonly op: BinaryOp;
  readonly x: Expr;
  readonly y: Expr;
}

export interface PositionalArg {
  readonly kind: "PositionalArg";
  readonly pos: Pos;
  readonly value: Expr;
}
export interface KeywordArg {
  readonly kind: "KeywordArg";
  readonly pos: Pos;
  readonly name: string;
  readonly value: Expr;
}
/** `*iterable` */
export interface StarArg {
  readonly kind: "StarArg";
  readonly pos: Pos;
  readonly value: Expr;
}
/** `**mapping` */
export interface StarStarArg {
  readonly kind: "StarStarArg";
  readonly pos: Pos;
  readonly value: Expr;
}
export type CallArg = PositionalArg | KeywordArg | StarArg | StarStarArg;

export interface Call {
  readonly kind: "Call";
  /** start of fn */
  readonly pos: Pos;
  readonly fn: Expr;
  readonly lparen: Pos;
  readonly args: CallArg[];
  readonly rparen: Pos;
}

export interface Index {
  readonly kind: "Index";
  readonly pos: Pos;
  readonly x: Expr;
  readonly lbrack: Pos;
  readonly y: Expr;
}

export interface Slice {
  readonly kind: "Slice";
  readonly pos: Pos;
  readonly x: Expr;
  readonly lbrack: Pos;
  readonly lo: Expr | null;
  readonly hi: Expr | null;
  readonly step: Expr | null;
}

export interface Dot {
  readonly kind: "Dot";
  readonly pos: Pos;
  readonly x: Expr;
  readonly dotPos: Pos;
  readonly namePos: Pos;
  readonly name: string;
}

export interface List {
  readonly kind: "List";
  readonly pos: Pos;
  readonly elems: Expr[];
}

export interface Tuple {
  readonly kind: "Tuple";
  readonly pos: Pos;
  readonly elems: Expr[];
}

export interface DictEntry {
  readonly kind: "DictEntry";
  readonly pos: Pos;
  readonly key: Expr;
  readonly value: Expr;
}

export interface Dict {
  readonly kind: "Dict";
  readonly pos: Pos;
  readonly entries: DictEntry[];
}

export interface ForClause {
  readonly kind: "ForClause";
  readonly pos: Pos;
  readonly vars: Expr;
  readonly x: Expr;
}

export interface IfClause {
  readonly kind: "IfClause";
  readonly pos: Pos;
  readonly cond: Expr;
}

export type CompClause = ForClause | IfClause;

/** `[body for ... if ...]`; the first clause is always a ForClause. */
export interface ListComp {
  readonly kind: "ListComp";
  readonly pos: Pos;
  readonly body: Expr;
  readonly clauses: CompClause[];
}

/** `{k: v for ... if ...}`; the first clause is always a ForClause. */
export interface DictComp {
  readonly kind: "DictComp";
  readonly pos: Pos;
  readonly entry: DictEntry;
  readonly clauses: CompClause[];
}

export interface Lambda {
  readonly kind: "Lambda";
  readonly pos: Pos;
  readonly body: Expr;
  readonly function: Function;
}

export interface Paren {
  readonly kind: "Paren";
  readonly pos: Pos;
  readonly x: Expr;
}

/** `t if cond else f` */
export interface Cond {
  readonly kind: "Cond";
  /** start of t */
  readonly pos: Pos;
  readonly ifPos: Pos;
  readonly cond: Expr;
  readonly t: Expr;
  readonly f: Expr;
}

export type Expr =
  | Ident
  | Literal
  | FString
  | Unary
  | Binary
  | Call
  | Index
  | Slice
  | Dot
  | List
  | Tuple
  | Dict
  | ListComp
  | DictComp
  | Lambda
  | Paren
  | Cond;

export type Node =
  File | Stmt | Expr | Param | CallArg | DictEntry | CompClause | FStringField;
