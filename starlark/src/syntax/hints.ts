// Hints for Python habits that Starlark lacks. Each hint is appended AFTER starlark-go's own
// message (the conformance suite matches that message by regex), in parentheses, and names the
// Starlark way of doing the thing.

import type { Token } from "./tokens.js";

const EXCEPTIONS =
  "Starlark has no exceptions: check values before using them, and call fail(msg) to stop with an error";

/** Hints for a reserved word or operator found where Starlark expected something else. */
const TOKEN_HINTS: Partial<Record<Token, string>> = {
  class: "Starlark has no classes; use a dict, or a function that returns one",
  import:
    'Starlark has no import statement; the host predeclares the available modules, and load("file", "name") loads names from another file',
  from: 'Starlark has no import statement; the host predeclares the available modules, and load("file", "name") loads names from another file',
  try: EXCEPTIONS,
  except: EXCEPTIONS,
  finally: EXCEPTIONS,
  raise: "Starlark has no raise; call fail(msg) to stop with an error",
  global:
    "Starlark has no global statement; return the new value from the function, or mutate a dict or list",
  nonlocal:
    "Starlark has no nonlocal statement; return the new value from the function, or mutate a dict or list",
  with: "Starlark has no with statement; call the functions directly",
  yield: "Starlark has no generators; build a list and return it",
  is: "Starlark has no 'is' operator; compare with == or !=, e.g. x == None",
  del: "Starlark has no del statement; use dict.pop(key) or list.pop(index)",
  async:
    "Starlark has no async/await; host calls are awaited for you, so call them like ordinary functions",
  await:
    "Starlark has no async/await; host calls are awaited for you, so call them like ordinary functions",
  "**": "Starlark has no ** power operator; multiply (x * x) or loop",
};

export function tokenHint(tok: Token): string {
  const hint = TOKEN_HINTS[tok];
  return hint === undefined ? "" : ` (${hint})`;
}

export const STARRED_HINT =
  " (Starlark has no starred expressions such as `a, *rest = x` or `[*a, *b]`; use slicing: a, rest = x[0], x[1:], or concatenation: a + b)";

export const DOUBLE_STARRED_HINT =
  " (Starlark has no ** unpacking in literals such as `{**a, **b}`; merge dicts with dict(a, **b) or a | b)";

export const CHAINED_COMPARISON_HINT =
  " (Starlark has no chained comparisons; write `a < b and b < c`)";

/** Python built-ins that Starlark lacks, with the Starlark way. */
const BUILTIN_HINTS: Readonly<Record<string, string>> = {
  sum: "Starlark has no sum(); add in a for loop",
  isinstance:
    'Starlark has no isinstance(); compare type(x) == "int" (type returns a string)',
  issubclass:
    "Starlark has no classes; compare type(x) with a type name string",
  map: "Starlark has no map(); use a list comprehension: [f(x) for x in xs]",
  filter:
    "Starlark has no filter(); use a list comprehension: [x for x in xs if cond(x)]",
  round:
    'Starlark has no round(); use int(x + 0.5) for non-negative x, or format with "%.2f" % x',
  open: "Starlark has no file access",
  input: "Starlark has no input(); the host passes data in",
  pow: "Starlark has no pow(); multiply (x * x) or loop",
  divmod: "Starlark has no divmod(); use (a // b, a % b)",
  iter: "Starlark has no iterators; loop over the value directly",
  next: "Starlark has no iterators; index the list (xs[0]) or loop over it",
  callable: 'Starlark has no callable(); compare type(x) == "function"',
  setattr: "Starlark has no setattr(); use a dict",
  delattr: "Starlark has no delattr(); use a dict and dict.pop(key)",
  frozenset: "Starlark has no frozenset(); use set() (if enabled) or a dict",
  eval: "Starlark has no eval()",
  exec: "Starlark has no exec()",
  format: 'Starlark has no format(); use "%s" % x or "{}".format(x)',
  id: "Starlark has no id()",
  object: "Starlark has no classes; use a dict",
  super: "Starlark has no classes; use a dict",
  globals: "Starlark has no globals(); use a dict",
  locals: "Starlark has no locals(); use a dict",
  vars: "Starlark has no vars(); use a dict",
  bin: 'Starlark has no bin(); use "%o" % x or "%x" % x for octal or hex',
  hex: 'Starlark has no hex(); use "%x" % x',
  oct: 'Starlark has no oct(); use "%o" % x',
  exit: "Starlark has no exit(); return from the function, or call fail(msg)",
  quit: "Starlark has no quit(); return from the function, or call fail(msg)",
  Exception: EXCEPTIONS,
  ValueError: EXCEPTIONS,
  TypeError: EXCEPTIONS,
  KeyError: EXCEPTIONS,
  RuntimeError: EXCEPTIONS,
  math: "math is not available here unless the host provides it",
  json: "json is not available here unless the host provides it",
  null: "Starlark spells it None",
  true: "Starlark spells it True",
  false: "Starlark spells it False",
  nil: "Starlark spells it None",
  undefined: "Starlark spells it None",
  self: "Starlark has no classes or methods; pass the value as an ordinary parameter",
};

export function builtinHint(name: string): string {
  const hint = Object.hasOwn(BUILTIN_HINTS, name)
    ? BUILTIN_HINTS[name]
    : undefined;
  return hint === undefined ? "" : ` (${hint})`;
}

export const ANNOTATION_HINT =
  " (Starlark has no type annotations; write def f(x, y=1): without `: type` or `-> type`)";

export const VARIABLE_ANNOTATION_HINT =
  " (Starlark has no variable annotations such as `x: int = 1`; write x = 1)";

export const LOOP_ELSE_HINT =
  " (Starlark has no for/else or while/else; use a flag variable set inside the loop)";
