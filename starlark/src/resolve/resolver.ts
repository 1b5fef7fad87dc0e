// Name resolution (starlark-go's resolve/resolve.go).
//
// Every name is resolved statically. The lexical environment is a tree of blocks with the
// file block at its root; its children are function and comprehension blocks. A name is local
// to a function if the function binds it anywhere (so a use may precede the binding), and a
// top-level name is global if the module binds it anywhere. Resolution therefore runs in two
// passes: while walking, each use is recorded with its block; when a function ends, uses of
// its own locals are resolved; at the end of the file the remaining uses are looked up
// lexically, bottom-up, creating a free variable in each intervening function (and turning the
// captured local into a cell), or else resolved as file-local, global, predeclared or
// universal, or reported as undefined.
//
// Bindings created by `load` are local to the file block unless `loadbindsglobally`. The
// dialect options (toplevelcontrol, while, set, globalreassign) are enforced here, with
// starlark-go's messages. All errors are collected, not just the first.

import type {
  Binding,
  CallArg,
  CompClause,
  Expr,
  File,
  FileOptions,
  Function,
  Ident,
  KeywordArg,
  Load,
  NamedParam,
  Pos,
  StarParam,
  Stmt,
} from "../syntax/ast.js";
import { builtinHint } from "../syntax/hints.js";
import { nearest } from "./spell.js";

const DOESNT = "this Starlark dialect does not ";

export class ResolveError extends Error {
  override readonly name = "ResolveError";
  constructor(
    readonly filename: string,
    readonly pos: Pos,
    readonly msg: string,
  ) {
    super(`${filename}:${pos.line}:${pos.col}: ${msg}`);
  }
}

interface Block {
  readonly parent: Block | null;
  /** set for function blocks */
  readonly fn: Function | null;
  readonly bindings: Map<string, Binding>;
  readonly children: Block[];
  /** uses of names in this container (function or file) block */
  uses: Use[];
}

interface Use {
  readonly id: Ident;
  readonly env: Block;
}

interface ArgState {
  varargs: boolean;
  kwargs: boolean;
  readonly names: Set<string>;
  positional: number;
  named: number;
}

interface ParamState {
  seenOptional: boolean;
  star: StarParam | null;
  starStar: Ident | null;
  numKwonly: number;
}

const newBlock = (parent: Block | null, fn: Function | null): Block => ({
  parent,
  fn,
  bindings: new Map(),
  children: [],
  uses: [],
});

/** Go's lower-cased AST type names, for "can't assign to ..." */
const TARGET_NAMES: Readonly<Record<string, string>> = {
  Literal: "literal",
  FString: "literal",
  Binary: "binaryexpr",
  Unary: "unaryexpr",
  Call: "callexpr",
  Cond: "condexpr",
  ListComp: "comprehension",
  DictComp: "comprehension",
  Dict: "dictexpr",
  Lambda: "lambdaexpr",
  Slice: "sliceexpr",
};

class Resolver {
  private readonly file: Block = newBlock(null, null);
  private env: Block = this.file;
  readonly moduleLocals: Binding[] = [];
  readonly moduleGlobals: Binding[] = [];
  private readonly globals = new Map<string, Binding>();
  private readonly predeclared = new Map<string, Binding>();
  private loops = 0;
  private ifstmts = 0;
  readonly errors: ResolveError[] = [];

  constructor(
    private readonly filename: string,
    private readonly options: FileOptions,
    private readonly isPredeclared: (name: string) => boolean,
    private readonly isUniversal: (name: string) => boolean,
  ) {}

  private errorf(pos: Pos, msg: string): void {
    this.errors.push(new ResolveError(this.filename, pos, msg));
  }

  private posString(pos: Pos): string {
    return `${this.filename}:${pos.line}:${pos.col}`;
  }

  /** The innermost function block, or the file block. */
  private container(): Block {
    for (let b: Block | null = this.env; b !== null; b = b.parent) {
      if (b.fn !== null || b === this.file) return b;
    }
    return this.file;
  }

  private push(b: Block): void {
    this.env.children.push(b);
    this.env = b;
  }

  private pop(): void {
    this.env = this.env.parent ?? this.file;
  }

  run(stmts: Stmt[]): void {
    this.stmts(stmts);
    resolveLocalUses(this.file);
    this.resolveNonLocalUses(this.file);
  }

  runExpr(e: Expr): void {
    this.expr(e);
    resolveLocalUses(this.file);
    this.resolveNonLocalUses(this.file);
  }

  /** Binds id: a global at top level, a local otherwise. Returns whether it was bound before. */
  private bind(id: Ident): boolean {
    if (this.env !== this.file) return this.bindLocal(id);
    let bind = this.file.bindings.get(id.name);
    let existed = bind !== undefined;
    if (bind === undefined) {
      bind = this.globals.get(id.name);
      existed = bind !== undefined;
      if (bind === undefined) {
        bind = {
          scope: "global",
          index: this.moduleGlobals.length,
          name: id.name,
          firstPos: id.pos,
        };
        this.globals.set(id.name, bind);
        this.moduleGlobals.push(bind);
      }
    }
    if (existed && !this.options.globalreassign) {
      this.errorf(
        id.pos,
        `cannot reassign ${bind.scope} ${id.name} declared at ${this.posString(bind.firstPos)}`,
      );
    }
    id.binding = bind;
    return existed;
  }

  private bindLocal(id: Ident): boolean {
    const existed = this.env.bindings.has(id.name);
    if (!existed) {
      const fn = this.container().fn;
      const locals = fn !== null ? fn.locals : this.moduleLocals;
      const bind: Binding = {
        scope: "local",
        index: locals.length,
        name: id.name,
        firstPos: id.pos,
      };
      this.env.bindings.set(id.name, bind);
      locals.push(bind);
    }
    this.use(id);
    return existed;
  }

  private use(id: Ident): void {
    const use: Use = { id, env: this.env };
    // With globalreassign (legacy Bazel semantics), a top-level use sees only the bindings
    // made before it, so resolve it now.
    if (this.options.globalreassign && this.env === this.file) {
      this.useToplevel(use);
      return;
    }
    this.container().uses.push(use);
  }

  private useToplevel(use: Use): Binding {
    const { id } = use;
    let bind =
      this.file.bindings.get(id.name) ??
      this.globals.get(id.name) ??
      this.predeclared.get(id.name);
    if (bind === undefined) bind = this.newPredeclared(use);
    id.binding = bind;
    return bind;
  }

  private newPredeclared(use: Use): Binding {
    const { id } = use;
    if (this.isPredeclared(id.name)) {
      const bind: Binding = {
        scope: "predeclared",
        index: 0,
        name: id.name,
        firstPos: id.pos,
      };
      this.predeclared.set(id.name, bind);
      return bind;
    }
    if (this.isUniversal(id.name)) {
      if (!this.options.set && id.name === "set")
        this.errorf(id.pos, DOESNT + "support sets");
      const bind: Binding = {
        scope: "universal",
        index: 0,
        name: id.name,
        firstPos: id.pos,
      };
      this.predeclared.set(id.name, bind);
      return bind;
    }
    const suggestion = this.spellcheck(use);
    const hint = suggestion !== "" ? ` (did you mean ${suggestion}?)` : "";
    this.errorf(id.pos, `undefined: ${id.name}${hint}${builtinHint(id.name)}`);
    // An undefined name still gets a binding so the tree is complete; resolution failed, so
    // the evaluator never sees it.
    return { scope: "universal", index: 0, name: id.name, firstPos: id.pos };
  }

  private spellcheck(use: Use): string {
    const names: string[] = [];
    for (let b: Block | null = use.env; b !== null; b = b.parent)
      names.push(...b.bindings.keys());
    for (const g of this.moduleGlobals) names.push(g.name);
    names.sort();
    return nearest(use.id.name, names);
  }

  private stmts(stmts: Stmt[]): void {
    for (const s of stmts) this.stmt(s);
  }

  private topLevelControl(pos: Pos, what: string): void {
    if (!this.options.toplevelcontrol && this.container().fn === null)
      this.errorf(pos, `${what} not within a function`);
  }

  private stmt(stmt: Stmt): void {
    (this.stmtHandlers[stmt.kind] as (s: Stmt) => void)(stmt);
  }

  private readonly stmtHandlers: {
    [K in Stmt["kind"]]: (s: Extract<Stmt, { kind: K }>) => void;
  } = {
    ExprStmt: (s) => this.expr(s.x),
    Branch: (s) => {
      if (this.loops === 0 && s.token !== "pass")
        this.errorf(s.pos, `${s.token} not in a loop`);
    },
    If: (s) => {
      this.topLevelControl(s.pos, "if statement");
      this.expr(s.cond);
      this.ifstmts++;
      this.stmts(s.trueBody);
      this.stmts(s.falseBody);
      this.ifstmts--;
    },
    Assign: (s) => {
      this.expr(s.rhs);
      this.assign(s.lhs, s.op !== "=");
    },
    Def: (s) => {
      this.bind(s.name);
      this.function(s.function);
    },
    For: (s) => {
      this.topLevelControl(s.pos, "for loop");
      this.expr(s.x);
      this.assign(s.vars, false);
      this.loop(s.body);
    },
    While: (s) => {
      if (!this.options.while)
        this.errorf(s.pos, DOESNT + "support while loops");
      this.topLevelControl(s.pos, "while loop");
      this.expr(s.cond);
      this.loop(s.body);
    },
    Return: (s) => {
      if (this.container().fn === null)
        this.errorf(s.pos, "return statement not within a function");
      if (s.result !== null) this.expr(s.result);
    },
    Load: (s) => this.load(s),
  };

  private loop(body: Stmt[]): void {
    this.loops++;
    this.stmts(body);
    this.loops--;
  }

  private load(stmt: Load): void {
    if (this.container().fn !== null)
      this.errorf(stmt.pos, "load statement within a function");
    else if (this.loops > 0)
      this.errorf(stmt.pos, "load statement within a loop");
    else if (this.ifstmts > 0)
      this.errorf(stmt.pos, "load statement within a conditional");
    stmt.from.forEach((from, i) => {
      if (from.name === "") {
        this.errorf(from.pos, "load: empty identifier");
        return;
      }
      if (from.name.startsWith("_")) {
        this.errorf(
          from.pos,
          `load: names with leading underscores are not exported: ${from.name}`,
        );
      }
      const id = stmt.to[i]!;
      if (this.options.loadbindsglobally) {
        this.bind(id);
      } else if (this.bindLocal(id) && !this.options.globalreassign) {
        this.errorf(id.pos, `cannot reassign top-level ${id.name}`);
      }
    });
  }

  private assign(lhs: Expr, isAugmented: boolean): void {
    switch (lhs.kind) {
      case "Ident":
        this.bind(lhs);
        return;
      case "Index":
        this.expr(lhs.x);
        this.expr(lhs.y);
        return;
      case "Dot":
        this.expr(lhs.x);
        return;
      case "Tuple":
      case "List":
        // `[] = x` and `() = x` are allowed (they check that x is empty), as in starlark-go.
        this.assignSequence(lhs.kind, lhs.pos, lhs.elems, isAugmented);
        return;
      case "Paren":
        this.assign(lhs.x, isAugmented);
        return;
      default:
        this.errorf(
          lhs.pos,
          `can't assign to ${TARGET_NAMES[lhs.kind] ?? lhs.kind.toLowerCase()}`,
        );
    }
  }

  private assignSequence(
    kind: "Tuple" | "List",
    pos: Pos,
    elems: Expr[],
    isAugmented: boolean,
  ): void {
    const what = kind === "Tuple" ? "tuple" : "list";
    if (isAugmented)
      this.errorf(pos, `can't use ${what} expression in augmented assignment`);
    for (const e of elems) this.assign(e, isAugmented);
  }

  private expr(e: Expr): void {
    (this.exprHandlers[e.kind] as (x: Expr) => void)(e);
  }

  private readonly exprHandlers: {
    [K in Expr["kind"]]: (e: Extract<Expr, { kind: K }>) => void;
  } = {
    Ident: (e) => this.use(e),
    Literal: () => undefined,
    FString: (e) => {
      for (const part of e.parts)
        if (typeof part !== "string") this.expr(part.expr);
    },
    List: (e) => this.exprs(e.elems),
    Tuple: (e) => this.exprs(e.elems),
    Dict: (e) => {
      for (const entry of e.entries) this.exprs([entry.key, entry.value]);
    },
    Cond: (e) => this.exprs([e.cond, e.t, e.f]),
    Index: (e) => this.exprs([e.x, e.y]),
    Slice: (e) => this.exprs([e.x, e.lo, e.hi, e.step]),
    ListComp: (e) => this.comprehension(e.clauses, [e.body]),
    DictComp: (e) =>
      this.comprehension(e.clauses, [e.entry.key, e.entry.value]),
    Unary: (e) => this.expr(e.x),
    Paren: (e) => this.expr(e.x),
    Binary: (e) => this.exprs([e.x, e.y]),
    Dot: (e) => this.expr(e.x),
    Call: (e) => {
      this.expr(e.fn);
      this.callArgs(e.pos, e.args);
    },
    Lambda: (e) => this.function(e.function),
  };

  private exprs(es: (Expr | null)[]): void {
    for (const e of es) if (e !== null) this.expr(e);
  }

  private comprehension(clauses: CompClause[], body: Expr[]): void {
    // The operand of the first for clause is resolved in the enclosing block: [x for x in x].
    const first = clauses[0];
    if (first?.kind === "ForClause") this.expr(first.x);
    this.push(newBlock(this.env, null));
    if (first?.kind === "ForClause") this.assign(first.vars, false);
    for (const clause of clauses.slice(1)) {
      if (clause.kind === "IfClause") {
        this.expr(clause.cond);
      } else {
        this.assign(clause.vars, false);
        this.expr(clause.x);
      }
    }
    for (const b of body) this.expr(b);
    this.pop();
  }

  private callArgs(pos: Pos, args: CallArg[]): void {
    const seen: ArgState = {
      varargs: false,
      kwargs: false,
      names: new Set(),
      positional: 0,
      named: 0,
    };
    for (const arg of args) {
      this.checkArg(arg, seen);
      this.expr(arg.value);
    }
    if (seen.positional >= 256)
      this.errorf(
        pos,
        `${seen.positional} positional arguments in call, limit is 255`,
      );
    if (seen.named >= 256)
      this.errorf(pos, `${seen.named} keyword arguments in call, limit is 255`);
  }

  /** starlark-go's argument order rules: positional, named, *args, **kwargs. */
  private checkArg(arg: CallArg, seen: ArgState): void {
    const { pos } = arg;
    if (arg.kind === "StarStarArg") {
      if (seen.kwargs) this.errorf(pos, "multiple **kwargs not allowed");
      seen.kwargs = true;
    } else if (arg.kind === "StarArg") {
      if (seen.kwargs) this.errorf(pos, "*args may not follow **kwargs");
      else if (seen.varargs) this.errorf(pos, "multiple *args not allowed");
      seen.varargs = true;
    } else if (arg.kind === "KeywordArg") {
      this.checkKeywordArg(arg, seen);
    } else {
      this.checkPositionalArg(pos, seen);
    }
  }

  private checkPositionalArg(pos: Pos, seen: ArgState): void {
    seen.positional++;
    const after = seen.varargs
      ? "*args"
      : seen.kwargs
        ? "**kwargs"
        : seen.names.size > 0
          ? "named"
          : null;
    if (after !== null)
      this.errorf(pos, `positional argument may not follow ${after}`);
  }

  private checkKeywordArg(arg: KeywordArg, seen: ArgState): void {
    seen.named++;
    if (seen.kwargs)
      this.errorf(arg.pos, "keyword argument may not follow **kwargs");
    else if (seen.varargs)
      this.errorf(arg.pos, "keyword argument may not follow *args");
    if (seen.names.has(arg.name))
      this.errorf(
        arg.pos,
        `keyword argument ${JSON.stringify(arg.name)} is repeated`,
      );
    seen.names.add(arg.name);
  }

  private function(fn: Function): void {
    // Default values are evaluated, hence resolved, in the enclosing environment.
    for (const param of fn.params)
      if (param.kind === "NamedParam" && param.default !== null)
        this.expr(param.default);
    const b = newBlock(this.env, fn);
    this.push(b);
    this.params(fn);
    fn.numParams = fn.locals.length;
    // break/continue inside a nested def do not see the enclosing function's loops.
    const outerLoops = this.loops;
    this.loops = 0;
    this.stmts(fn.body);
    this.loops = outerLoops;
    resolveLocalUses(b);
    this.pop();
    // Uses of globals in the body are resolved at the end of the file.
  }

  private bindParam(id: Ident, errPos: Pos): void {
    if (this.bind(id)) this.errorf(errPos, `duplicate parameter: ${id.name}`);
  }

  private params(fn: Function): void {
    const st: ParamState = {
      seenOptional: false,
      star: null,
      starStar: null,
      numKwonly: 0,
    };
    for (const param of fn.params) {
      if (param.kind === "NamedParam") this.namedParam(param, st);
      else if (param.kind === "StarParam") this.starParam(param, st);
      else {
        if (st.starStar !== null)
          this.errorf(param.pos, "multiple ** parameters not allowed");
        st.starStar = param.name;
      }
    }
    // *args and **kwargs are bound last, so that the named parameters are contiguous and a
    // bare * leaves no hole.
    if (st.star?.name) {
      this.bindParam(st.star.name, st.star.name.pos);
      fn.hasVarargs = true;
    } else if (st.star !== null && st.numKwonly === 0) {
      this.errorf(
        st.star.pos,
        "bare * must be followed by keyword-only parameters",
      );
    }
    if (st.starStar !== null) {
      this.bindParam(st.starStar, st.starStar.pos);
      fn.hasKwargs = true;
    }
    fn.numKwonlyParams = st.numKwonly;
  }

  private namedParam(param: NamedParam, st: ParamState): void {
    const errPos = param.eqPos ?? param.name.pos;
    const required = param.default === null;
    if (st.starStar !== null) {
      this.errorf(
        errPos,
        `${required ? "required" : "optional"} parameter may not follow **${st.starStar.name}`,
      );
    } else if (st.star !== null) {
      st.numKwonly++;
    } else if (required && st.seenOptional) {
      this.errorf(errPos, "required parameter may not follow optional");
    }
    this.bindParam(param.name, errPos);
    if (!required) st.seenOptional = true;
  }

  private starParam(param: StarParam, st: ParamState): void {
    if (st.starStar !== null)
      this.errorf(
        param.pos,
        `* parameter may not follow **${st.starStar.name}`,
      );
    else if (st.star !== null)
      this.errorf(param.pos, "multiple * parameters not allowed");
    else st.star = param;
  }

  private resolveNonLocalUses(b: Block): void {
    for (const child of b.children) this.resolveNonLocalUses(child);
    for (const use of b.uses) use.id.binding = this.lookupLexical(use, use.env);
  }

  private lookupLexical(use: Use, env: Block): Binding {
    if (env === this.file) return this.useToplevel(use);
    let bind = env.bindings.get(use.id.name);
    if (bind !== undefined) return bind;
    bind = this.lookupLexical(use, env.parent ?? this.file);
    if (
      env.fn !== null &&
      (bind.scope === "local" || bind.scope === "free" || bind.scope === "cell")
    ) {
      // Found in an enclosing function: capture it. The outer local becomes a cell, the
      // function gets a free variable, and the inner block a "free" binding to it.
      if (bind.scope === "local") bind.scope = "cell";
      const index = env.fn.freevars.length;
      env.fn.freevars.push(bind);
      bind = { scope: "free", index, name: bind.name, firstPos: bind.firstPos };
    }
    // Memoise, so that each name gets at most one free variable per function.
    env.bindings.set(use.id.name, bind);
    return bind;
  }
}

/** Looks a use up in its own function (or file-level comprehension) blocks only. */
function lookupLocal(use: Use): Binding | undefined {
  for (let env: Block | null = use.env; env !== null; env = env.parent) {
    const bind = env.bindings.get(use.id.name);
    if (bind !== undefined) return bind;
    if (env.fn !== null) break;
  }
  return undefined;
}

/** On leaving a container block, resolves the uses of its own locals; keeps the rest. */
function resolveLocalUses(b: Block): void {
  const unresolved: Use[] = [];
  for (const use of b.uses) {
    const bind = lookupLocal(use);
    if (bind !== undefined && (bind.scope === "local" || bind.scope === "cell"))
      use.id.binding = bind;
    else unresolved.push(use);
  }
  b.uses = unresolved;
}

export interface ResolveOptions {
  /** overrides file.options */
  readonly options?: FileOptions;
}

/**
 * Resolves every name in `file`, writing bindings into the tree (see ast.ts for the contract)
 * and `file.globals` / `file.locals`. Returns all resolver errors (empty on success).
 */
export function resolve(
  file: File,
  isPredeclared: (name: string) => boolean,
  isUniversal: (name: string) => boolean,
  opts: ResolveOptions = {},
): ResolveError[] {
  const r = new Resolver(
    file.path,
    opts.options ?? file.options,
    isPredeclared,
    isUniversal,
  );
  r.run(file.stmts);
  file.globals = r.moduleGlobals;
  file.locals = r.moduleLocals;
  return r.errors;
}

/**
 * Resolves a lone expression as if it were at the top level of a module with no globals
 * (starlark-go's resolve.Expr). Returns the locals it binds (comprehension variables) and the
 * errors.
 */
export function resolveExpr(
  expr: Expr,
  filename: string,
  options: FileOptions,
  isPredeclared: (name: string) => boolean,
  isUniversal: (name: string) => boolean,
): { locals: Binding[]; errors: ResolveError[] } {
  const r = new Resolver(filename, options, isPredeclared, isUniversal);
  r.runExpr(expr);
  return { locals: r.moduleLocals, errors: r.errors };
}
