// The error the scanner and parser throw. Like starlark-go's syntax.Error, it carries the
// position and the bare message separately: the conformance harness matches `msg` by regex and
// reports `pos.line`, while `message` is the familiar "file:line:col: msg" form.

import type { Pos } from "./ast.js";

export class StarlarkSyntaxError extends Error {
  override readonly name = "StarlarkSyntaxError";
  readonly filename: string;
  readonly pos: Pos;
  readonly msg: string;

  constructor(filename: string, pos: Pos, msg: string) {
    super(`${filename}:${pos.line}:${pos.col}: ${msg}`);
    this.filename = filename;
    this.pos = pos;
    this.msg = msg;
  }
}
