// The evaluator package (starlark-go's eval cut): values (value.ts, collections.ts, host.ts),
// operators (ops.ts, numeric.ts), builtins (universe.ts, methods*.ts, json.ts), the bytecode
// compiler (compile.ts) and interpreter loop (interp.ts) running on a Thread (thread.ts) with
// sandbox limits (alloc.ts), and the entry points (exec.ts). This is its surface for the rest
// of the package; the public API is ../index.ts.

export {
  Builtin,
  type BuiltinFn,
  type Kwargs,
  type MethodFn,
} from "./builtin.js";
export { Bytes, Dict, List, Range, StarSet } from "./collections.js";
export {
  type JsonValue,
  toJS,
  type ToolFn,
  toolFunction,
  toStarlark,
} from "./convert.js";
export {
  type CallFrame,
  EvalError,
  fail,
  LimitError,
  StarlarkError,
} from "./errors.js";
export {
  compileSource,
  evalExpr,
  type EvalExprOptions,
  execFile,
  type ExecOptions,
  execProgram,
  type ExecResult,
  type Predeclared,
} from "./exec.js";
export { Module, StarFunction } from "./function.js";
export { HostModule, HostObject, Struct } from "./host.js";
export { call, callStack } from "./interp.js";
export { jsonModule } from "./json.js";
export {
  DEFAULT_LIMITS,
  type Limits,
  type LoadFn,
  type PrintFn,
  Thread,
  type ThreadOptions,
} from "./thread.js";
export { UNIVERSE } from "./universe.js";
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
} from "./unpack.js";
export {
  Float,
  freeze,
  type HashKey,
  type Iter,
  repr,
  StarObject,
  str,
  type Tuple,
  typeName,
  type Value,
} from "./value.js";
