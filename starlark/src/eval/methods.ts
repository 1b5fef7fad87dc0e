// Method tables of the built-in types, looked up by ops.getAttr and bound to their receiver
// on access (starlark-go's stringMethods, listMethods, dictMethods, setMethods).

import { Builtin, type Kwargs, type MethodFn } from "./builtin.js";
import { Bytes, Dict, List, StarSet } from "./collections.js";
import { listMethods } from "./methods-list.js";
import { stringMethods } from "./methods-string.js";
import { dictMethods, setMethods } from "./methods-table.js";
import type { Thread } from "./thread.js";
import type { Value } from "./value.js";

export function methodTable<R>(
  defs: Record<string, MethodFn<R>>,
): Map<string, Builtin> {
  const m = new Map<string, Builtin>();
  for (const [name, fn] of Object.entries(defs)) {
    m.set(
      name,
      new Builtin(
        name,
        (thread: Thread, args: Value[], kwargs: Kwargs, self: Builtin) =>
          fn(thread, self.recv as R, args, kwargs, self),
      ),
    );
  }
  return m;
}

let tables:
  | {
      string: Map<string, Builtin>;
      list: Map<string, Builtin>;
      dict: Map<string, Builtin>;
      set: Map<string, Builtin>;
      bytes: Map<string, Builtin>;
    }
  | undefined;

function getTables(): NonNullable<typeof tables> {
  tables ??= {
    string: methodTable(stringMethods),
    list: methodTable(listMethods),
    dict: methodTable(dictMethods),
    set: methodTable(setMethods),
    bytes: methodTable(bytesMethods),
  };
  return tables;
}

const bytesMethods: Record<string, MethodFn<Bytes>> = {
  elems: (_t, b) => new List([...b.data].map((c) => c.charCodeAt(0))),
};

export function methodsOf(x: Value): Map<string, Builtin> | undefined {
  if (typeof x === "string") return getTables().string;
  if (x instanceof List) return getTables().list;
  if (x instanceof Dict) return getTables().dict;
  if (x instanceof StarSet) return getTables().set;
  if (x instanceof Bytes) return getTables().bytes;
  return undefined;
}
