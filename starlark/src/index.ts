// Public surface of the Starlark interpreter: run files and expressions with host values,
// limits and cancellation; convert data between JS and Starlark; define host builtins and
// objects; the error classes.

export { Builtin, type BuiltinFn, type Kwargs } from "./eval/builtin.js";
export { Bytes, Dict, List, Range, StarSet } from "./eval/collections.js";
export { type JsonValue, toJS, type ToolFn, toolFunction, toStarlark } from "./eval/convert.js";
export { type CallFrame, EvalError, LimitError, StarlarkError } from "./eval/errors.js";
export { evalExpr, type EvalExprOptions, execFile, type ExecOptions, type ExecResult, type Predeclared } from "./eval/exec.js";
export { Module, StarFunction } from "./eval/function.js";
export { HostModule, HostObject, Struct } from "./eval/host.js";
export { call } from "./eval/interp.js";
export { jsonModule } from "./eval/json.js";
export { DEFAULT_LIMITS, type Limits, type LoadFn, type PrintFn, Thread, type ThreadOptions } from "./eval/thread.js";
export { UNIVERSE } from "./eval/universe.js";
export {
  noKwargs,
  optBool,
  optString,
  unpackArgs,
  unpackPositional,
  wantBool,
  wantInt,
  wantNumber,
  wantString,
} from "./eval/unpack.js";
export { Float, freeze, repr, StarObject, str, type Tuple, typeName, type Value } from "./eval/value.js";
export { resolve, ResolveError } from "./resolve/resolver.js";
export type { FileOptions } from "./syntax/ast.js";
export { StarlarkSyntaxError as SyntaxError } from "./syntax/errors.js";
export { ALL_OPTIONS, DEFAULT_OPTIONS, parse } from "./syntax/parser.js";
