// Tree traversal (starlark-go's syntax.Walk) and a static scan for `object.method(...)` calls,
// which code mode uses to decide, before running a script, which tools it may call.

import type { File, Ident, Node, Param, Pos } from "./ast.js";

type Children = (n: never) => (Node | null)[];

const paramChildren = (p: Param): (Node | null)[] =>
  p.kind === "NamedParam" ? [p.name, p.default] : [p.name];

const CHILDREN: {
  [K in Node["kind"]]: (n: Extract<Node, { kind: K }>) => (Node | null)[];
} = {
  File: (n) => n.stmts,
  Assign: (n) => [n.lhs, n.rhs],
  Def: (n) => [n.name, ...n.function.params, ...n.function.body],
  ExprStmt: (n) => [n.x],
  For: (n) => [n.vars, n.x, ...n.body],
  While: (n) => [n.cond, ...n.body],
  If: (n) => [n.cond, ...n.trueBody, ...n.falseBody],
  Load: (n) => [n.module, ...n.to],
  Return: (n) => [n.result],
  Branch: () => [],
  Ident: () => [],
  Literal: () => [],
  FString: (n) => n.parts.filter((p) => typeof p !== "string"),
  FStringField: (n) => [n.expr],
  Unary: (n) => [n.x],
  Binary: (n) => [n.x, n.y],
  Call: (n) => [n.fn, ...n.args],
  PositionalArg: (n) => [n.value],
  KeywordArg: (n) => [n.value],
  StarArg: (n) => [n.value],
  StarStarArg: (n) => [n.value],
  Index: (n) => [n.x, n.y],
  Slice: (n) => [n.x, n.lo, n.hi, n.step],
  Dot: (n) => [n.x],
  List: (n) => n.elems,
  Tuple: (n) => n.elems,
  Dict: (n) => n.entries,
  DictEntry: (n) => [n.key, n.value],
  ListComp: (n) => [n.body, ...n.clauses],
  DictComp: (n) => [n.entry, ...n.clauses],
  ForClause: (n) => [n.vars, n.x],
  IfClause: (n) => [n.cond],
  // A lambda's body appears once: as `body` (its Function wraps the same node in a Return).
  Lambda: (n) => [...n.function.params, n.body],
  Paren: (n) => [n.x],
  Cond: (n) => [n.cond, n.t, n.f],
  NamedParam: paramChildren,
  StarParam: paramChildren,
  StarStarParam: paramChildren,
};

/** The direct children of a node, in source order. */
export function children(n: Node): Node[] {
  const get = CHILDREN[n.kind] as Children;
  return get(n as never).filter((c): c is Node => c !== null);
}

/**
 * Visits `n` and its descendants depth-first in source order, parents before children.
 * `visit` returning false skips the node's children.
 */
export function walk(
  n: Node,
  visit: (n: Node, parent: Node | null) => boolean | void,
): void {
  const rec = (node: Node, parent: Node | null): void => {
    if (visit(node, parent) === false) return;
    for (const c of children(node)) rec(c, node);
  };
  rec(n, null);
}

export interface MethodCall {
  /** the receiver's name, e.g. "github" in github.create_issue(...) */
  readonly object: string;
  readonly method: string;
  readonly pos: Pos;
}

export interface ObjectUses {
  /** every `object.method(...)` call on a watched name */
  readonly calls: MethodCall[];
  /** every other use of a watched name (aliasing, getattr, passing it or `object.method`
   * without calling it): the calls such code makes cannot be known statically */
  readonly escapes: { readonly object: string; readonly pos: Pos }[];
}

/**
 * Finds the calls a script makes on the objects named by `isObject` (for code mode: the
 * server objects), conservatively. Run it on a resolved File to ignore names the script
 * rebinds: then only identifiers whose binding is predeclared count.
 */
export function findObjectUses(
  file: File,
  isObject: (name: string) => boolean,
): ObjectUses {
  const calls: MethodCall[] = [];
  const escapes: { object: string; pos: Pos }[] = [];
  const watched = (e: Node): e is Ident =>
    e.kind === "Ident" &&
    isObject(e.name) &&
    (e.binding === null || e.binding.scope === "predeclared");
  const visit = (n: Node): boolean => {
    if (n.kind === "Call" && n.fn.kind === "Dot" && watched(n.fn.x)) {
      calls.push({ object: n.fn.x.name, method: n.fn.name, pos: n.fn.namePos });
      // The receiver is accounted for; the arguments may use watched names too.
      for (const arg of n.args) walk(arg, visit);
      return false;
    }
    if (watched(n)) escapes.push({ object: n.name, pos: n.pos });
    return true;
  };
  walk(file, visit);
  return { calls, escapes };
}
