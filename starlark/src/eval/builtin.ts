// Builtin functions and methods: host code callable from Starlark.
//
// A builtin receives the calling thread, its positional arguments and its keyword arguments
// as name/value pairs (unpack them with unpack.ts). It may return a Promise: the interpreter
// then parks the evaluation and resumes it with the settled value or error. Methods are
// builtins bound to a receiver (`recv`), created on attribute access like starlark-go's
// Builtin.BindReceiver.

import type { Thread } from "./thread.js";
import { StarObject, typeName, type Value } from "./value.js";

export type Kwargs = [string, Value][];

export type BuiltinFn = (
  thread: Thread,
  args: Value[],
  kwargs: Kwargs,
  self: Builtin,
) => Value | Promise<Value>;

export class Builtin extends StarObject {
  get typeName(): string {
    return "builtin_function_or_method";
  }
  constructor(
    readonly name: string,
    readonly fn: BuiltinFn,
    readonly recv: Value | undefined = undefined,
  ) {
    super();
  }
  override repr(): string {
    if (this.recv !== undefined)
      return `<built-in method ${this.name} of ${typeName(this.recv)} value>`;
    return `<built-in function ${this.name}>`;
  }
  bind(recv: Value): Builtin {
    return new Builtin(this.name, this.fn, recv);
  }
  override equals(other: Value): boolean {
    if (!(other instanceof Builtin)) return false;
    if (this === other) return true;
    return (
      this.recv !== undefined &&
      this.fn === other.fn &&
      this.recv === other.recv
    );
  }
}

// A method implementation: like a builtin, with its receiver first.
export type MethodFn<R> = (
  thread: Thread,
  recv: R,
  args: Value[],
  kwargs: Kwargs,
  self: Builtin,
) => Value | Promise<Value>;
