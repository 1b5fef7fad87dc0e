// Methods of dict and set.

import { chargeElems } from "./alloc.js";
import type { Kwargs, MethodFn } from "./builtin.js";
import { Dict, List, StarSet } from "./collections.js";
import { fail } from "./errors.js";
import { isIterable, toArray } from "./ops.js";
import { unpackArgs, unpackPositional } from "./unpack.js";
import { mkTuple, typeName, type Value } from "./value.js";

// dict(...) and dict.update(...): one optional positional (mapping or iterable of pairs)
// plus keyword arguments.
// eslint-disable-next-line complexity -- dict.update's argument forms, in starlark-go's order
export function updateDict(
  d: Dict,
  args: readonly Value[],
  kwargs: Kwargs,
): void {
  if (args.length > 1) fail(`got ${args.length} arguments, want at most 1`);
  const src = args[0];
  if (src instanceof Dict) {
    for (const e of src.map.values()) d.insert(e.k, e.v);
  } else if (src !== undefined) {
    if (!isIterable(src)) fail(`got ${typeName(src)}, want iterable`);
    let i = 0;
    for (const pair of toArray(src)) {
      const kv = !isIterable(pair) ? undefined : toArray(pair);
      if (kv === undefined)
        fail(
          `dictionary update sequence element #${i} is not iterable (${typeName(pair)})`,
        );
      if (kv.length !== 2)
        fail(
          `dictionary update sequence element #${i} has length ${kv.length}, want 2`,
        );
      d.insert(kv[0] ?? null, kv[1] ?? null);
      i++;
    }
  }
  for (const [k, v] of kwargs) d.insert(k, v);
  chargeElems(d.size, 0);
}

export const dictMethods: Record<string, MethodFn<Dict>> = {
  clear(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    d.clear();
    return null;
  },
  get(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 1, 2);
    return d.get(args[0] ?? null) ?? args[1] ?? null;
  },
  items(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    return new List(d.items().map(([k, v]) => mkTuple([k, v])));
  },
  keys(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    return new List(d.keys());
  },
  pop(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 1, 2);
    const e = d.remove(args[0] ?? null);
    if (e) return e.v;
    if (args.length > 1) return args[1] ?? null;
    return fail("missing key");
  },
  popitem(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    const first = d.map.values().next();
    if (first.done === true) fail("empty dict");
    d.remove(first.value.k);
    return mkTuple([first.value.k, first.value.v]);
  },
  setdefault(_t, d, args, kwargs) {
    const [k, dflt] = unpackArgs(args, kwargs, ["key", "default?"]);
    const v = d.get(k ?? null);
    if (v !== undefined) return v;
    const nv = dflt ?? null;
    d.insert(k ?? null, nv);
    return nv;
  },
  update(_t, d, args, kwargs) {
    updateDict(d, args, kwargs);
    return null;
  },
  values(_t, d, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    return new List([...d.map.values()].map((e) => e.v));
  },
};

function iterableArgs(args: readonly Value[]): Value[][] {
  return args.map((a, i) => {
    if (!isIterable(a))
      fail(`argument #${i + 1} is not iterable: ${typeName(a)}`);
    return toArray(a);
  });
}

function setOf(elems: Iterable<Value>): StarSet {
  const s = new StarSet();
  for (const e of elems) s.add(e);
  return s;
}

function others(args: Value[], kwargs: Kwargs): StarSet[] {
  if (kwargs.length > 0) fail("does not accept keyword arguments");
  return iterableArgs(args).map(setOf);
}

function oneSet(args: Value[], kwargs: Kwargs): StarSet {
  unpackPositional(args, kwargs, 1, 1);
  return others(args, [])[0] ?? new StarSet();
}

export const setMethods: Record<string, MethodFn<StarSet>> = {
  add(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    chargeElems(s.size + 1, 1);
    s.add(args[0] ?? null);
    return null;
  },
  clear(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    // Clearing an empty set is no mutation, even when frozen (starlark-go's set.clear).
    if (s.size > 0) s.clear();
    return null;
  },
  difference(_t, s, args, kwargs) {
    const os = others(args, kwargs);
    return setOf(s.keys().filter((k) => !os.some((o) => o.has(k))));
  },
  discard(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    s.remove(args[0] ?? null);
    return null;
  },
  intersection(_t, s, args, kwargs) {
    const os = others(args, kwargs);
    return setOf(s.keys().filter((k) => os.every((o) => o.has(k))));
  },
  issubset(_t, s, args, kwargs) {
    const o = oneSet(args, kwargs);
    return s.keys().every((k) => o.has(k));
  },
  issuperset(_t, s, args, kwargs) {
    const o = oneSet(args, kwargs);
    return o.keys().every((k) => s.has(k));
  },
  pop(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 0, 0);
    const first = s.map.values().next();
    if (first.done === true) fail("empty set");
    s.remove(first.value.k);
    return first.value.k;
  },
  remove(_t, s, args, kwargs) {
    unpackPositional(args, kwargs, 1, 1);
    if (!s.remove(args[0] ?? null)) fail("missing key");
    return null;
  },
  symmetric_difference(_t, s, args, kwargs) {
    const o = oneSet(args, kwargs);
    return setOf([
      ...s.keys().filter((k) => !o.has(k)),
      ...o.keys().filter((k) => !s.has(k)),
    ]);
  },
  union(_t, s, args, kwargs) {
    const os = others(args, kwargs);
    return setOf([...s.keys(), ...os.flatMap((o) => o.keys())]);
  },
  update(_t, s, args, kwargs) {
    if (kwargs.length > 0) fail("does not accept keyword arguments");
    for (const elems of iterableArgs(args)) {
      for (const e of elems) s.add(e);
    }
    chargeElems(s.size, 0);
    return null;
  },
};
