// Host objects: values with named attributes that the embedding application provides.
//
// HostObject is the general form (code mode exposes one per MCP server, whose attributes are
// the server's tools). HostModule is starlark-go's starlarkstruct.Module ("module" type, as the
// assert and json modules), Struct is starlarkstruct.Struct (immutable named fields,
// compared field by field).

import { fail } from "./errors.js";
import { equalsDepth } from "./ops.js";
import {
  freeze,
  type HashKey,
  hashKey,
  mkTuple,
  repr,
  StarObject,
  type Value,
} from "./value.js";

export class HostObject extends StarObject {
  readonly members: Map<string, Value>;
  constructor(
    readonly typeName: string,
    members: Record<string, Value> | Iterable<[string, Value]>,
    readonly label: string = typeName,
  ) {
    super();
    this.members = new Map(
      Symbol.iterator in members ? members : Object.entries(members),
    );
  }
  override attr(name: string): Value | undefined {
    return this.members.get(name);
  }
  override attrNames(): string[] {
    return [...this.members.keys()].sort();
  }
  override repr(): string {
    return `<${this.typeName} ${this.label}>`;
  }
  override freeze(): void {
    for (const v of this.members.values()) freeze(v);
  }
}

export class HostModule extends HostObject {
  constructor(
    readonly name: string,
    members: Record<string, Value> | Iterable<[string, Value]>,
  ) {
    super("module", members, name);
  }
  override repr(): string {
    return `<module "${this.name}">`;
  }
  override hashKey(): HashKey {
    return fail("unhashable: module");
  }
  override setField(name: string): void {
    fail(`can't assign to .${name} field of module`);
  }
}

export class Struct extends StarObject {
  readonly typeName: string = "struct";
  readonly fields: Map<string, Value>;
  constructor(fields: Iterable<[string, Value]>) {
    super();
    this.fields = new Map(
      [...fields].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }
  override attr(name: string): Value | undefined {
    return this.fields.get(name);
  }
  override attrNames(): string[] {
    return [...this.fields.keys()];
  }
  override repr(seen: StarObject[]): string {
    const parts = [...this.fields].map(([k, v]) => `${k} = ${repr(v, seen)}`);
    return `struct(${parts.join(", ")})`;
  }
  override freeze(): void {
    for (const v of this.fields.values()) freeze(v);
  }
  override hashKey(): HashKey {
    return `\u0001struct(${[...this.fields.keys()].join(",")})${hashKey(mkTuple([...this.fields.values()])) as string}`;
  }
  override equals(other: Value, depth: number): boolean {
    if (!(other instanceof Struct) || other.fields.size !== this.fields.size)
      return false;
    for (const [k, v] of this.fields) {
      const o = other.fields.get(k);
      if (o === undefined || !equalsDepth(v, o, depth + 1)) return false;
    }
    return true;
  }
  override setField(name: string): void {
    fail(`cannot assign to field .${name} of struct`);
  }
}
