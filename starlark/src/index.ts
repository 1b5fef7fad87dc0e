// Public surface of the Starlark interpreter: run files and expressions with host values,
// limits and cancellation; convert data between JS and Starlark; define host builtins and
// objects; the error classes.
//
// Code mode, for example:
//
//   const github = new HostObject("server", {
//     search_issues: toolFunction("github.search_issues", (params) => callTool("github", "search_issues", params)),
//   }, "github");
//   const logs: string[] = [];
//   const { globals } = await execFile({
//     filename: "script.star",
//     source,
//     predeclared: { github },
//     options: { toplevelcontrol: true, globalreassign: true, while: true, set: true, recursion: true, fstrings: true },
//     limits: { timeoutMs: 30_000 },
//     signal,
//     print: (line) => logs.push(line),
//   });
//   const result = toJS(globals.get("result") ?? null);
//
// Errors: SyntaxError and ResolveError (static, with file:line:col in `message`), EvalError
// (runtime: `msg`, `callStack`, `backtrace()`, `isLimit` for steps/timeout/cancellation, and
// `cause` = the host's own error when a host function failed).

export {
  Builtin,
  type BuiltinFn,
  Bytes,
  call,
  type CallFrame,
  DEFAULT_LIMITS,
  Dict,
  EvalError,
  evalExpr,
  type EvalExprOptions,
  execFile,
  type ExecOptions,
  type ExecResult,
  Float,
  freeze,
  HostModule,
  HostObject,
  jsonModule,
  type JsonValue,
  type Kwargs,
  LimitError,
  type Limits,
  List,
  type LoadFn,
  Module,
  noKwargs,
  optBool,
  optString,
  type Predeclared,
  type PrintFn,
  Range,
  repr,
  StarFunction,
  StarlarkError,
  StarObject,
  StarSet,
  str,
  Struct,
  Thread,
  type ThreadOptions,
  toJS,
  type ToolFn,
  toolFunction,
  toStarlark,
  type Tuple,
  typeName,
  UNIVERSE,
  unpackArgs,
  unpackPositional,
  type Value,
  wantBool,
  wantInt,
  wantNumber,
  wantString,
} from "./eval/index.js";
export { resolve, ResolveError } from "./resolve/resolver.js";
export type { FileOptions } from "./syntax/ast.js";
export { StarlarkSyntaxError as SyntaxError } from "./syntax/errors.js";
export { ALL_OPTIONS, DEFAULT_OPTIONS, parse } from "./syntax/parser.js";
export {
  findObjectUses,
  type MethodCall,
  type ObjectUses,
  walk,
} from "./syntax/walk.js";

/** Keywords and the Python words Starlark reserves: neither is an identifier. */
export { KEYWORDS, RESERVED } from "./syntax/tokens.js";
