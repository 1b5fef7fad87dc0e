/**
 * Error texts for scripts that cannot run: syntax errors (with the parser's hints for Python
 * habits) and SPEC 7's undefined server name, which lists the server keys the caller may use
 * and tells the model to use one of them as the object name.
 */
import {
  type ResolveError,
  SyntaxError as StarlarkSyntaxError,
} from "@toolgate/starlark";

import type { Catalog } from "./catalog.js";

export function syntaxMessage(err: unknown): string | undefined {
  if (!(err instanceof StarlarkSyntaxError)) return undefined;
  return `syntax error, the script was not run: ${err.message}`;
}

export function undefinedServerMessage(
  err: ResolveError,
  name: string,
  catalog: Catalog,
): string {
  const where = `${err.filename}:${err.pos.line}:${err.pos.col}`;
  const names = catalog.servers.map((s) => s.name);
  if (names.length === 0)
    return `${where}: undefined server "${name}": no code-mode server is available to you, so no server object exists`;
  const close = catalog.find(name);
  const hint = close
    ? ` Did you mean ${close.name}? Server names are case-sensitive in code.`
    : "";
  const first = catalog.servers[0];
  const tool = first ? [...first.tools.keys()][0] : undefined;
  const example = first && tool ? `, e.g. ${first.name}.${tool}(...)` : "";
  return `${where}: undefined server "${name}". Available server keys: ${names.join(", ")}. Use one of them as the object name${example}.${hint}`;
}
