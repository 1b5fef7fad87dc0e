// Starlark functions (closures over compiled FuncCode) and modules, and the binding of call
// arguments to parameters (starlark-go's setArgs, with its messages).

import { Dict } from "./collections.js";
import type { FuncCode, Program } from "./compile.js";
import { fail } from "./errors.js";
import { didYouMean } from "./spell.js";
import {
  freeze,
  mkTuple,
  quote,
  StarObject,
  typeName,
  type Value,
} from "./value.js";

// A captured variable shared between a function and the closures made inside it.
export class Cell {
  constructor(public v: Value | undefined) {}
}

class Mandatory extends StarObject {
  get typeName(): string {
    return "mandatory";
  }
}

// The default of a parameter that has none.
export const MANDATORY: StarObject = new Mandatory();

// A module's global state: one slot per global name (undefined until assigned).
export class Module {
  readonly globals: (Value | undefined)[];
  constructor(
    readonly prog: Program,
    readonly predeclared: ReadonlyMap<string, Value>,
  ) {
    this.globals = new Array<Value | undefined>(prog.globalNames.length).fill(
      undefined,
    );
  }
  // The assigned globals by name, in order of first binding.
  entries(): [string, Value][] {
    const out: [string, Value][] = [];
    this.prog.globalNames.forEach((name, i) => {
      const v = this.globals[i];
      if (v !== undefined) out.push([name, v]);
    });
    return out;
  }
  freeze(): void {
    for (const v of this.globals) if (v !== undefined) freeze(v);
  }
}

export class StarFunction extends StarObject {
  get typeName(): string {
    return "function";
  }
  private frozen = false;
  constructor(
    readonly code: FuncCode,
    readonly defaults: readonly Value[],
    readonly freevars: readonly Cell[],
    readonly module: Module,
  ) {
    super();
  }
  get name(): string {
    return this.code.name;
  }
  override repr(): string {
    return `<function ${this.code.name}>`;
  }
  override freeze(): void {
    if (this.frozen) return;
    this.frozen = true;
    for (const d of this.defaults) freeze(d);
    for (const c of this.freevars) if (c.v !== undefined) freeze(c.v);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function bindKeywords(
  fn: StarFunction,
  locals: (Value | undefined)[],
  kwargs: readonly [string, Value][],
  nparams: number,
  kwdict: Dict | undefined,
): void {
  const names = fn.code.paramNames;
  for (const [k, v] of kwargs) {
    const i = names.indexOf(k);
    if (i >= 0 && i < nparams) {
      if (locals[i] !== undefined)
        fail(
          `function ${fn.name} got multiple values for parameter ${quote(k)}`,
        );
      locals[i] = v;
      continue;
    }
    if (!kwdict) {
      fail(
        `function ${fn.name} got an unexpected keyword argument ${quote(k)}${didYouMean(k, names.slice(0, nparams))}`,
      );
    }
    const before = kwdict.size;
    kwdict.insert(k, v);
    if (kwdict.size === before)
      fail(`function ${fn.name} got multiple values for parameter ${quote(k)}`);
  }
}

function bindDefaults(
  fn: StarFunction,
  locals: (Value | undefined)[],
  n: number,
  nparams: number,
): void {
  const missing: string[] = [];
  for (let i = n; i < nparams; i++) {
    if (locals[i] !== undefined) continue;
    const d = fn.defaults[i];
    if (d === undefined || d === MANDATORY)
      missing.push(fn.code.paramNames[i] ?? "?");
    else locals[i] = d;
  }
  if (missing.length > 0) {
    fail(
      `function ${fn.name} missing ${plural(missing.length, "argument")} (${missing.join(", ")})`,
    );
  }
}

// Binds arguments into a fresh locals array for a call of fn.
// eslint-disable-next-line complexity -- a port of starlark-go's setArgs, kept in its order
export function setArgs(
  fn: StarFunction,
  args: readonly Value[],
  kwargs: readonly [string, Value][],
): (Value | undefined)[] {
  const code = fn.code;
  const locals = new Array<Value | undefined>(code.localNames.length).fill(
    undefined,
  );
  if (code.numParams === 0) {
    const n = args.length + kwargs.length;
    if (n > 0) fail(`function ${fn.name} accepts no arguments (${n} given)`);
    return locals;
  }
  let nparams = code.numParams;
  let kwdict: Dict | undefined;
  if (code.hasKwargs) {
    nparams--;
    kwdict = new Dict();
    locals[nparams] = kwdict;
  }
  if (code.hasVarargs) nparams--;
  const nonkwonly = nparams - code.numKwonly;
  let n = args.length;
  if (n > nonkwonly) {
    if (!code.hasVarargs) {
      const hasOptional = fn.defaults
        .slice(0, nonkwonly)
        .some((d) => d !== MANDATORY);
      fail(
        `function ${fn.name} accepts ${hasOptional ? "at most " : ""}${nonkwonly} positional argument${nonkwonly === 1 ? "" : "s"} (${args.length} given)`,
      );
    }
    n = nonkwonly;
  }
  for (let i = 0; i < n; i++) locals[i] = args[i];
  if (code.hasVarargs) locals[nparams] = mkTuple(args.slice(n));
  if (kwargs.length > 0) bindKeywords(fn, locals, kwargs, nparams, kwdict);
  if (n < nparams) bindDefaults(fn, locals, n, nparams);
  return locals;
}

// Turns the `**kwargs` operand of a call into keyword pairs.
export function kwargsFromMapping(m: Value): [string, Value][] {
  if (!(m instanceof Dict))
    return fail(`argument after ** must be a mapping, not ${typeName(m)}`);
  const out: [string, Value][] = [];
  for (const e of m.map.values()) {
    if (typeof e.k !== "string")
      fail(`keywords must be strings, not ${typeName(e.k)}`);
    out.push([e.k, e.v]);
  }
  return out;
}
