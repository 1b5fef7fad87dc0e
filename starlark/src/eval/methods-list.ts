// Methods of list.

import { chargeElems, chargeWork } from "./alloc.js";
import type { MethodFn } from "./builtin.js";
import type { List } from "./collections.js";
import { fail } from "./errors.js";
import { equals, toArray } from "./ops.js";
import { unpackArgs, unpackPositional, wantInt } from "./unpack.js";
import type { Value } from "./value.js";

function clampIndex(i: number, n: number): number {
  if (i < 0) i += n;
  return Math.max(0, Math.min(i, n));
}

export const listMethods: Record<string, MethodFn<List>> = {
  append(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    l.checkMutable("append to");
    chargeElems(l.elems.length + 1, 1);
    l.elems.push(args[0] ?? null);
    return null;
  },
  clear(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    l.checkMutable("clear");
    l.elems.length = 0;
    return null;
  },
  extend(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    l.checkMutable("extend");
    const more = toArray(args[0] ?? null);
    chargeElems(l.elems.length + more.length, more.length);
    for (const v of more) l.elems.push(v);
    return null;
  },
  index(_t, l, args, kwargs) {
    const [x, start, end] = unpackArgs(args, kwargs, ["x", "start?", "end?"]);
    const n = l.elems.length;
    const lo =
      start === undefined || start === null
        ? 0
        : clampIndex(wantInt(start, "start"), n);
    const hi =
      end === undefined || end === null
        ? n
        : clampIndex(wantInt(end, "end"), n);
    chargeWork(hi - lo);
    for (let i = lo; i < hi; i++)
      if (equals(l.elems[i] ?? null, x ?? null)) return i;
    return fail("value not in list");
  },
  insert(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 2, 2);
    l.checkMutable("insert into");
    const i = clampIndex(wantInt(args[0] ?? null, "index"), l.elems.length);
    chargeElems(l.elems.length + 1, 1);
    l.elems.splice(i, 0, args[1] ?? null);
    return null;
  },
  pop(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 0, 1);
    const n = l.elems.length;
    const orig = args.length > 0 ? wantInt(args[0] ?? null, "index") : n - 1;
    const i = orig < 0 ? orig + n : orig;
    if (i < 0 || i >= n)
      fail(
        n === 0
          ? `index ${orig} out of range: empty list`
          : `index ${orig} out of range [${-n}:${n - 1}]`,
      );
    l.checkMutable("pop from");
    return l.elems.splice(i, 1)[0] ?? null;
  },
  remove(_t, l, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    l.checkMutable("remove from");
    const x: Value = args[0] ?? null;
    chargeWork(l.elems.length);
    const i = l.elems.findIndex((e) => equals(e, x));
    if (i < 0) fail("element not found");
    l.elems.splice(i, 1);
    return null;
  },
};
