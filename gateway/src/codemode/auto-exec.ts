/**
 * SPEC 9.5 for executeToolCode: agent mode may run a script by itself only when every
 * `server.tool(...)` call in it is a tool in that server's `tools_to_auto_execute`. The calls
 * are found on the parsed and resolved tree (a name the script rebinds is not a server), and
 * any use of a server object other than a direct method call (aliasing it, getattr, passing
 * it around) makes the calls unknowable, so the script goes to the caller instead.
 */
import { findObjectUses, parse, resolve, UNIVERSE } from "@toolgate/starlark";

import type { Catalog } from "./catalog.js";
import { CODE_OPTIONS, isPredeclared, SCRIPT_NAME } from "./execute.js";

export function classifyCode(
  code: unknown,
  catalog: Catalog,
): "auto" | "manual" {
  if (typeof code !== "string") return "manual";
  let file: ReturnType<typeof parse>;
  try {
    file = parse(SCRIPT_NAME, code, CODE_OPTIONS);
  } catch {
    // A script that does not parse runs nothing: executing it only reports the syntax error.
    return "auto";
  }
  const isServer = (name: string): boolean => catalog.get(name) !== undefined;
  // Likewise a script with unresolved names is refused before it runs.
  if (
    resolve(
      file,
      (name) => isPredeclared(catalog, name),
      (name) => UNIVERSE.has(name),
    ).length > 0
  )
    return "auto";
  const uses = findObjectUses(file, isServer);
  if (uses.escapes.length > 0) return "manual";
  for (const c of uses.calls) {
    const tool = catalog.get(c.object)?.tools.get(c.method);
    if (!tool?.entry.autoExecute) return "manual";
  }
  return "auto";
}
