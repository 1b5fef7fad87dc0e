// Runtime errors of the evaluator.
//
// Operations and builtins throw StarlarkError with starlark-go's bare message; the
// interpreter loop catches it at the frame where it happened and turns it into an EvalError
// that carries the Starlark call stack (innermost frame last, as starlark-go's CallStack).
// EvalError.message is "file:line:col: msg" so a host that only prints the error shows the
// position; `msg` is the bare message that the conformance files match.

export interface CallFrame {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export class StarlarkError extends Error {
  constructor(readonly msg: string) {
    super(msg);
    this.name = "StarlarkError";
  }
}

// Raised when a sandbox limit (steps, allocation, time, cancellation) ends an evaluation.
// Starlark code cannot catch it: catch() in the test harness rethrows it.
export class LimitError extends StarlarkError {
  constructor(msg: string) {
    super(msg);
    this.name = "LimitError";
  }
}

export class EvalError extends Error {
  readonly msg: string;
  readonly callStack: readonly CallFrame[];
  override readonly cause: unknown;

  constructor(msg: string, callStack: readonly CallFrame[], cause?: unknown) {
    const top = callStack[callStack.length - 1];
    super(top ? `${top.file}:${top.line}:${top.col}: ${msg}` : msg);
    this.name = "EvalError";
    this.msg = msg;
    this.callStack = callStack;
    this.cause = cause;
  }

  // The error and its Starlark call stack in Python's traceback order.
  backtrace(): string {
    const lines = ["Traceback (most recent call last):"];
    for (const f of this.callStack)
      lines.push(`  ${f.file}:${f.line}:${f.col}: in ${f.name}`);
    lines.push(`Error: ${this.msg}`);
    return lines.join("\n");
  }

  // True when a sandbox limit, not the script's own logic, ended the evaluation.
  get isLimit(): boolean {
    return this.cause instanceof LimitError;
  }
}

export function fail(msg: string): never {
  throw new StarlarkError(msg);
}
