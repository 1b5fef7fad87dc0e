/**
 * The code-mode view of one caller: the code-mode clients it may use and, per client, its
 * allowed tools under their identifier names. Built from a registry snapshot already filtered
 * for the caller (tools_to_execute, x-bf-mcp-* headers, virtual key), so everything code mode
 * shows or runs is limited to what this caller could call directly.
 */
import type { ToolEntry, ToolFilter, ToolRegistry } from "../registry/types.js";
import { toIdentifier } from "./identifiers.js";

export interface CatalogTool {
  /** The identifier used in code and stubs (`get_sum`). */
  readonly id: string;
  readonly entry: ToolEntry;
}

export interface CatalogServer {
  /** The client's name: the global object of the script. */
  readonly name: string;
  /** Identifier -> tool, in the registry's stable order. */
  readonly tools: ReadonlyMap<string, CatalogTool>;
}

export interface Catalog {
  /** Servers in name order. */
  readonly servers: readonly CatalogServer[];
  /** A server by exact name. */
  get(name: string): CatalogServer | undefined;
  /** A server by name, ignoring case (models often capitalise). */
  find(name: string): CatalogServer | undefined;
}

/** The tool by identifier or by its MCP name, ignoring case. */
export function findTool(
  server: CatalogServer,
  name: string,
): CatalogTool | undefined {
  const exact = server.tools.get(name);
  if (exact) return exact;
  const lower = name.toLowerCase();
  for (const t of server.tools.values())
    if (t.id.toLowerCase() === lower || t.entry.tool.toLowerCase() === lower)
      return t;
  return undefined;
}

export function catalogOf(entries: readonly ToolEntry[]): Catalog {
  const byName = new Map<string, Map<string, CatalogTool>>();
  for (const entry of entries) {
    if (!entry.codeMode) continue;
    let tools = byName.get(entry.client);
    if (!tools) {
      tools = new Map();
      byName.set(entry.client, tools);
    }
    const id = toIdentifier(entry.tool);
    // Two MCP names with one identifier (`a-b` and `a_b`): the first in registry order keeps it
    // and the other is left out, since a script could not name it.
    if (!tools.has(id)) tools.set(id, { id, entry });
  }
  const servers: CatalogServer[] = [...byName]
    .map(([name, tools]) => ({ name, tools }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const exact = new Map(servers.map((s) => [s.name, s]));
  const folded = new Map<string, CatalogServer>();
  for (const s of servers)
    if (!folded.has(s.name.toLowerCase())) folded.set(s.name.toLowerCase(), s);
  return {
    servers,
    get: (name) => exact.get(name),
    find: (name) => exact.get(name) ?? folded.get(name.toLowerCase()),
  };
}

/** The catalogue of a caller: code-mode tools that pass its filter. */
export function callerCatalog(
  registry: ToolRegistry,
  filter: ToolFilter,
): Catalog {
  return catalogOf(registry.list({ ...filter, includeCodeMode: true }));
}
