/**
 * MCP tool names are free-form (`get-sum`, `search.v2`), but in a script a tool is an attribute
 * of its server object, so it needs a Starlark identifier. The mapping is deterministic and
 * shared by the stubs, the docs, the runtime objects and the auto-execution check, so the
 * name a model reads in a `.pyi` file is the name that works in code.
 */
import { KEYWORDS, RESERVED as STARLARK_RESERVED } from "@toolgate/starlark";

/** Starlark keywords and reserved words: not usable after a dot (`server.pass(...)`). */
const RESERVED = new Set<string>([...KEYWORDS, ...STARLARK_RESERVED]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !RESERVED.has(name);
}

/**
 * `get-sum` -> `get_sum`: every character outside [A-Za-z0-9_] becomes `_`, a leading digit gets
 * a `_` prefix and a reserved word a `_` suffix.
 */
export function toIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (id === "") id = "_";
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED.has(id)) id = `${id}_`;
  return id;
}
