// Compiles a resolved syntax tree to bytecode (see opcodes.ts), one FuncCode per function
// plus one for the module's top level, after starlark-go's internal/compile.
//
// The compiler trusts the resolver: every Ident carries its Binding, so a variable access is
// one instruction with a slot index. Source positions are kept per instruction so that
// runtime errors and call stacks report the place starlark-go reports (the operator of a
// binary expression, the parenthesis of a call, the bracket of an index).

import type * as ast from "../syntax/ast.js";
import { Bytes } from "./collections.js";
import { MANDATORY } from "./function.js";
import * as op from "./opcodes.js";
import { Float, type Value } from "./value.js";

export interface LoadSpec {
  readonly module: string;
  readonly names: readonly string[];
  readonly line: number;
  readonly col: number;
}

export interface FieldSpec {
  readonly conversion: "s" | "r" | null;
  readonly spec: string | null;
}

export type Const = Value | LoadSpec | FieldSpec;

export interface FuncCode {
  readonly name: string;
  readonly line: number;
  readonly col: number;
  readonly code: number[];
  readonly lines: number[];
  readonly cols: number[];
  readonly localNames: readonly string[];
  readonly cells: readonly number[];
  readonly freeNames: readonly string[];
  readonly numParams: number;
  readonly numKwonly: number;
  readonly hasVarargs: boolean;
  readonly hasKwargs: boolean;
  readonly paramNames: readonly string[];
  // Number of default slots (named parameters), each a value or MANDATORY.
  readonly numDefaults: number;
  // Only plain positional parameters and no captured locals: calls take the fast path.
  readonly simple: boolean;
  readonly prog: Program;
}

export interface Program {
  readonly filename: string;
  readonly consts: Const[];
  readonly constIndex: Map<string | number, number>;
  readonly funcs: FuncCode[];
  readonly globalNames: readonly string[];
  readonly loads: readonly string[];
  toplevel: FuncCode | undefined;
  readonly recursion: boolean;
}

const BINOPS: Record<string, number> = {
  "+": op.PLUS,
  "-": op.MINUS,
  "*": op.STAR,
  "/": op.SLASH,
  "//": op.SLASHSLASH,
  "%": op.PERCENT,
  "&": op.AMP,
  "|": op.PIPE,
  "^": op.CIRCUMFLEX,
  "<<": op.LTLT,
  ">>": op.GTGT,
  "==": op.EQL,
  "!=": op.NEQ,
  "<": op.LT,
  ">": op.GT,
  "<=": op.LE,
  ">=": op.GE,
  in: op.IN,
  "not in": op.NOT_IN,
};

interface Loop {
  readonly continueTarget: number;
  readonly breaks: number[];
}

class FnCompiler {
  readonly code: number[] = [];
  readonly lines: number[] = [];
  readonly cols: number[] = [];
  private readonly loops: Loop[] = [];
  private pos: ast.Pos;

  constructor(
    private readonly prog: Program,
    start: ast.Pos,
  ) {
    this.pos = start;
  }

  emit(opcode: number, arg = 0, at: ast.Pos = this.pos): number {
    const pc = this.code.length;
    this.code.push(opcode, arg);
    this.lines.push(at.line);
    this.cols.push(at.col);
    return pc;
  }

  here(): number {
    return this.code.length;
  }

  patch(pc: number, target: number): void {
    this.code[pc + 1] = target;
  }

  constIndex(v: Const): number {
    const dedup = typeof v === "string" || typeof v === "number";
    if (dedup) {
      const i = this.prog.constIndex.get(v);
      if (i !== undefined) return i;
    }
    this.prog.consts.push(v);
    const i = this.prog.consts.length - 1;
    if (dedup) this.prog.constIndex.set(v, i);
    return i;
  }

  // ---- statements ----

  stmts(list: readonly ast.Stmt[]): void {
    for (const s of list) this.stmt(s);
  }

  // eslint-disable-next-line complexity -- one case per statement kind
  stmt(s: ast.Stmt): void {
    this.pos = s.pos;
    switch (s.kind) {
      case "ExprStmt":
        this.expr(s.x);
        this.emit(op.POP);
        return;
      case "Assign":
        this.assign(s);
        return;
      case "Def":
        this.func(s.function, s.pos);
        this.store(s.name);
        return;
      case "If":
        this.ifStmt(s);
        return;
      case "For":
        this.forStmt(s);
        return;
      case "While":
        this.whileStmt(s);
        return;
      case "Return":
        if (s.result) this.expr(s.result);
        else this.emit(op.NONE);
        this.emit(op.RETURN, 0, s.pos);
        return;
      case "Branch":
        this.branch(s);
        return;
      case "Load":
        this.load(s);
        return;
    }
  }

  private branch(s: ast.Branch): void {
    const loop = this.loops[this.loops.length - 1];
    if (s.token === "pass" || !loop) return;
    if (s.token === "break") loop.breaks.push(this.emit(op.JMP));
    else this.emit(op.JMP, loop.continueTarget);
  }

  private ifStmt(s: ast.If): void {
    this.expr(s.cond);
    const jf = this.emit(op.JMP_FALSE);
    this.stmts(s.trueBody);
    if (s.falseBody.length === 0) {
      this.patch(jf, this.here());
      return;
    }
    const jend = this.emit(op.JMP);
    this.patch(jf, this.here());
    this.stmts(s.falseBody);
    this.patch(jend, this.here());
  }

  private forStmt(s: ast.For): void {
    this.expr(s.x);
    this.emit(op.ITERPUSH, 0, s.pos);
    const top = this.here();
    const jexit = this.emit(op.ITERJMP);
    this.assignTarget(s.vars);
    const loop: Loop = { continueTarget: top, breaks: [] };
    this.loops.push(loop);
    this.stmts(s.body);
    this.loops.pop();
    this.emit(op.JMP, top);
    const end = this.here();
    this.patch(jexit, end);
    for (const b of loop.breaks) this.patch(b, end);
    this.emit(op.ITERPOP);
  }

  private whileStmt(s: ast.While): void {
    const top = this.here();
    this.expr(s.cond);
    const jexit = this.emit(op.JMP_FALSE);
    const loop: Loop = { continueTarget: top, breaks: [] };
    this.loops.push(loop);
    this.stmts(s.body);
    this.loops.pop();
    this.emit(op.JMP, top);
    const end = this.here();
    this.patch(jexit, end);
    for (const b of loop.breaks) this.patch(b, end);
  }

  private load(s: ast.Load): void {
    const spec: LoadSpec = {
      module: s.module.value,
      names: s.from.map((f) => f.name),
      line: s.pos.line,
      col: s.pos.col,
    };
    this.emit(op.LOAD, this.constIndex(spec), s.pos);
    for (let i = s.to.length - 1; i >= 0; i--) {
      const id = s.to[i];
      if (id) this.store(id);
    }
  }

  private assign(s: ast.Assign): void {
    if (s.op === "=") {
      this.expr(s.rhs);
      this.assignTarget(s.lhs);
      return;
    }
    const binop = s.op.slice(0, -1);
    const lhs = unparen(s.lhs);
    const opcode =
      binop === "+"
        ? op.INPLACE_ADD
        : binop === "|"
          ? op.INPLACE_PIPE
          : (BINOPS[binop] ?? op.NOP);
    if (lhs.kind === "Index") {
      this.expr(lhs.x);
      this.expr(lhs.y);
      this.emit(op.DUP2);
      this.emit(op.INDEX, 0, lhs.lbrack);
      this.expr(s.rhs);
      this.emit(opcode, 0, s.opPos);
      this.emit(op.ROT3);
      this.emit(op.SETINDEX, 0, lhs.lbrack);
    } else if (lhs.kind === "Dot") {
      this.expr(lhs.x);
      this.emit(op.DUP);
      this.emit(op.ATTR, this.constIndex(lhs.name), lhs.dotPos);
      this.expr(s.rhs);
      this.emit(opcode, 0, s.opPos);
      this.emit(op.EXCH);
      this.emit(op.SETFIELD, this.constIndex(lhs.name), lhs.dotPos);
    } else {
      this.expr(lhs);
      this.expr(s.rhs);
      this.emit(opcode, 0, s.opPos);
      this.assignTarget(lhs);
    }
  }

  // Stores the value on top of the stack into a target expression.
  assignTarget(e: ast.Expr): void {
    switch (e.kind) {
      case "Ident":
        this.store(e);
        return;
      case "Paren":
        this.assignTarget(e.x);
        return;
      case "Tuple":
      case "List":
        this.emit(op.UNPACK, e.elems.length, e.pos);
        for (const x of e.elems) this.assignTarget(x);
        return;
      case "Index":
        this.expr(e.x);
        this.expr(e.y);
        this.emit(op.SETINDEX, 0, e.lbrack);
        return;
      case "Dot":
        this.expr(e.x);
        this.emit(op.SETFIELD, this.constIndex(e.name), e.dotPos);
        return;
      default:
        throw new Error(`compile: invalid assignment target ${e.kind}`);
    }
  }

  store(id: ast.Ident): void {
    const b = id.binding;
    if (!b) throw new Error(`compile: unresolved identifier ${id.name}`);
    switch (b.scope) {
      case "local":
        this.emit(op.SETLOCAL, b.index, id.pos);
        return;
      case "cell":
        this.emit(op.SETLOCALCELL, b.index, id.pos);
        return;
      case "global":
        this.emit(op.SETGLOBAL, b.index, id.pos);
        return;
      default:
        throw new Error(`compile: cannot assign to ${b.scope} ${id.name}`);
    }
  }

  // ---- expressions ----

  expr(e: ast.Expr): void {
    switch (e.kind) {
      case "Ident":
        this.ident(e);
        return;
      case "Literal":
        this.literal(e);
        return;
      case "Paren":
        this.expr(e.x);
        return;
      case "Unary":
        this.unary(e);
        return;
      case "Binary":
        this.binary(e);
        return;
      case "Call":
        this.call(e);
        return;
      default:
        this.compound(e);
    }
  }

  private compound(e: ast.Expr): void {
    switch (e.kind) {
      case "Index":
        this.expr(e.x);
        this.expr(e.y);
        this.emit(op.INDEX, 0, e.lbrack);
        return;
      case "Slice":
        this.slice(e);
        return;
      case "Dot":
        this.expr(e.x);
        this.emit(op.ATTR, this.constIndex(e.name), e.dotPos);
        return;
      case "List":
      case "Tuple":
        for (const x of e.elems) this.expr(x);
        this.emit(
          e.kind === "List" ? op.MAKELIST : op.MAKETUPLE,
          e.elems.length,
          e.pos,
        );
        return;
      case "Dict":
        this.emit(op.MAKEDICT, 0, e.pos);
        for (const ent of e.entries) {
          this.expr(ent.key);
          this.expr(ent.value);
          this.emit(op.SETDICTUNIQ, 0, ent.pos);
        }
        return;
      default:
        this.other(e);
    }
  }

  private other(e: ast.Expr): void {
    switch (e.kind) {
      case "ListComp":
        this.emit(op.MAKELIST, 0, e.pos);
        this.comprehension(e.clauses, 0, () => {
          this.expr(e.body);
          this.emit(op.APPEND, 0, e.pos);
        });
        return;
      case "DictComp":
        this.emit(op.MAKEDICT, 0, e.pos);
        this.comprehension(e.clauses, 0, () => {
          this.expr(e.entry.key);
          this.expr(e.entry.value);
          this.emit(op.SETDICT, 0, e.entry.pos);
        });
        return;
      case "Lambda":
        this.func(e.function, e.pos);
        return;
      case "Cond": {
        this.expr(e.cond);
        const jf = this.emit(op.JMP_FALSE, 0, e.ifPos);
        this.expr(e.t);
        const jend = this.emit(op.JMP);
        this.patch(jf, this.here());
        this.expr(e.f);
        this.patch(jend, this.here());
        return;
      }
      case "FString":
        this.fstring(e);
        return;
      default:
        throw new Error(`compile: unexpected expression ${e.kind}`);
    }
  }

  private ident(id: ast.Ident): void {
    const b = id.binding;
    if (!b) throw new Error(`compile: unresolved identifier ${id.name}`);
    const opcode = {
      local: op.LOCAL,
      cell: op.LOCALCELL,
      free: op.FREE,
      global: op.GLOBAL,
      predeclared: op.PREDECLARED,
      universal: op.UNIVERSAL,
    }[b.scope];
    const byName = b.scope === "predeclared" || b.scope === "universal";
    this.emit(opcode, byName ? this.constIndex(id.name) : b.index, id.pos);
  }

  private literal(e: ast.Literal): void {
    switch (e.token) {
      case "int":
        this.emit(op.CONST, this.constIndex(e.value), e.pos);
        return;
      case "float":
        this.emit(op.CONST, this.constIndex(new Float(e.value)), e.pos);
        return;
      case "string":
        this.emit(op.CONST, this.constIndex(e.value), e.pos);
        return;
      case "bytes":
        this.emit(
          op.CONST,
          this.constIndex(new Bytes(String.fromCharCode(...e.value))),
          e.pos,
        );
        return;
    }
  }

  private unary(e: ast.Unary): void {
    this.expr(e.x);
    const opcode = {
      "+": op.UPLUS,
      "-": op.UMINUS,
      "~": op.TILDE,
      not: op.NOT,
    }[e.op];
    this.emit(opcode, 0, e.opPos);
  }

  private binary(e: ast.Binary): void {
    if (e.op === "and" || e.op === "or") {
      this.expr(e.x);
      const j = this.emit(
        e.op === "and" ? op.JMP_FALSE_OR_POP : op.JMP_TRUE_OR_POP,
        0,
        e.opPos,
      );
      this.expr(e.y);
      this.patch(j, this.here());
      return;
    }
    this.expr(e.x);
    this.expr(e.y);
    this.emit(BINOPS[e.op] ?? op.NOP, 0, e.opPos);
  }

  private slice(e: ast.Slice): void {
    this.expr(e.x);
    for (const part of [e.lo, e.hi, e.step]) {
      if (part) this.expr(part);
      else this.emit(op.NONE);
    }
    this.emit(op.SLICE, 0, e.lbrack);
  }

  private call(e: ast.Call): void {
    this.expr(e.fn);
    let npos = 0;
    let nkw = 0;
    let varargs = 0;
    let kwargs = 0;
    for (const a of e.args) {
      switch (a.kind) {
        case "PositionalArg":
          this.expr(a.value);
          npos++;
          break;
        case "KeywordArg":
          this.emit(op.CONST, this.constIndex(a.name), a.pos);
          this.expr(a.value);
          nkw++;
          break;
        case "StarArg":
          this.expr(a.value);
          varargs = 1;
          break;
        case "StarStarArg":
          this.expr(a.value);
          kwargs = 1;
          break;
      }
    }
    this.emit(
      op.CALL,
      npos | (nkw << 8) | (varargs << 16) | (kwargs << 17),
      e.lparen,
    );
  }

  private comprehension(
    clauses: readonly ast.CompClause[],
    i: number,
    body: () => void,
  ): void {
    const clause = clauses[i];
    if (!clause) {
      body();
      return;
    }
    if (clause.kind === "IfClause") {
      this.expr(clause.cond);
      const jf = this.emit(op.JMP_FALSE, 0, clause.pos);
      this.comprehension(clauses, i + 1, body);
      this.patch(jf, this.here());
      return;
    }
    this.expr(clause.x);
    this.emit(op.ITERPUSH, 0, clause.pos);
    const top = this.here();
    const jexit = this.emit(op.ITERJMP);
    this.assignTarget(clause.vars);
    this.comprehension(clauses, i + 1, body);
    this.emit(op.JMP, top);
    this.patch(jexit, this.here());
    this.emit(op.ITERPOP);
  }

  private fstring(e: ast.FString): void {
    let n = 0;
    for (const part of e.parts) {
      if (typeof part === "string") {
        this.emit(op.CONST, this.constIndex(part), e.pos);
      } else {
        this.expr(part.expr);
        const spec: FieldSpec = {
          conversion: part.conversion,
          spec: part.spec,
        };
        this.emit(op.FORMAT, this.constIndex(spec), part.pos);
      }
      n++;
    }
    this.emit(op.CONCAT, n, e.pos);
  }

  // Pushes the defaults and captured cells, then MAKEFUNC.
  private func(fn: ast.Function, at: ast.Pos): void {
    let ndefaults = 0;
    for (const p of fn.params) {
      if (p.kind !== "NamedParam") continue;
      if (p.default) this.expr(p.default);
      else this.emit(op.CONST, this.constIndex(MANDATORY));
      ndefaults++;
    }
    for (const fv of fn.freevars) {
      this.emit(fv.scope === "cell" ? op.CELL : op.FREECELL, fv.index, at);
    }
    const code = compileFunction(this.prog, fn, ndefaults);
    this.prog.funcs.push(code);
    this.emit(op.MAKEFUNC, this.prog.funcs.length - 1, at);
  }
}

function unparen(e: ast.Expr): ast.Expr {
  return e.kind === "Paren" ? unparen(e.x) : e;
}

function cellsOf(locals: readonly ast.Binding[]): number[] {
  const out: number[] = [];
  locals.forEach((b, i) => {
    if (b.scope === "cell") out.push(i);
  });
  return out;
}

function compileFunction(
  prog: Program,
  fn: ast.Function,
  ndefaults: number,
): FuncCode {
  const c = new FnCompiler(prog, fn.pos);
  c.stmts(fn.body);
  c.emit(op.NONE);
  c.emit(op.RETURN);
  return {
    name: fn.name,
    line: fn.pos.line,
    col: fn.pos.col,
    code: c.code,
    lines: c.lines,
    cols: c.cols,
    localNames: fn.locals.map((b) => b.name),
    cells: cellsOf(fn.locals),
    freeNames: fn.freevars.map((b) => b.name),
    numParams: fn.numParams,
    numKwonly: fn.numKwonlyParams,
    hasVarargs: fn.hasVarargs,
    hasKwargs: fn.hasKwargs,
    paramNames: fn.locals.slice(0, fn.numParams).map((b) => b.name),
    numDefaults: ndefaults,
    simple:
      !fn.hasVarargs &&
      !fn.hasKwargs &&
      fn.numKwonlyParams === 0 &&
      cellsOf(fn.locals).length === 0,
    prog,
  };
}

export function compileFile(file: ast.File): Program {
  const loads: string[] = [];
  for (const s of file.stmts) if (s.kind === "Load") loads.push(s.module.value);
  const prog: Program = {
    filename: file.path,
    consts: [],
    constIndex: new Map(),
    funcs: [],
    globalNames: file.globals.map((b) => b.name),
    loads,
    toplevel: undefined,
    recursion: file.options.recursion,
  };
  const c = new FnCompiler(prog, file.pos);
  c.stmts(file.stmts);
  c.emit(op.NONE);
  c.emit(op.RETURN);
  prog.toplevel = {
    name: "<toplevel>",
    line: file.pos.line,
    col: file.pos.col,
    code: c.code,
    lines: c.lines,
    cols: c.cols,
    localNames: file.locals.map((b) => b.name),
    cells: cellsOf(file.locals),
    freeNames: [],
    numParams: 0,
    numKwonly: 0,
    hasVarargs: false,
    hasKwargs: false,
    paramNames: [],
    numDefaults: 0,
    simple: false,
    prog,
  };
  return prog;
}

// Compiles a lone expression (evalExpr) as a toplevel that returns its value.
export function compileExprFile(file: ast.File, expr: ast.Expr): Program {
  const prog = compileFile({ ...file, stmts: [] });
  const c = new FnCompiler(prog, expr.pos);
  c.expr(expr);
  c.emit(op.RETURN);
  const top = prog.toplevel;
  if (top)
    prog.toplevel = { ...top, code: c.code, lines: c.lines, cols: c.cols };
  return prog;
}
