/**
 * Tool filters (SPEC 4.4): the request headers turned into a `ToolFilter`, and the check of one
 * entry against a filter. Order of the checks: include clients, exclude clients, include
 * tools, exclude tools, the virtual key's allowance, then code mode.
 */
import { aggregateName, clientWildcard } from "./naming.js";
import type { ToolEntry, ToolFilter } from "./types.js";

export const TOOL_FILTER_HEADERS = {
  includeClients: "x-bf-mcp-include-clients",
  excludeClients: "x-bf-mcp-exclude-clients",
  includeTools: "x-bf-mcp-include-tools",
  excludeTools: "x-bf-mcp-exclude-tools",
} as const;

/** Entries built by the registry carry their wildcard precomputed, so filtering allocates nothing. */
interface WithWildcard {
  readonly wildcard?: string;
}

function wildcardOf(entry: ToolEntry): string {
  return (
    (entry as ToolEntry & WithWildcard).wildcard ?? clientWildcard(entry.client)
  );
}

function toolSetHas(set: ReadonlySet<string>, entry: ToolEntry): boolean {
  return set.has(entry.name) || set.has(wildcardOf(entry));
}

function passesClients(entry: ToolEntry, filter: ToolFilter): boolean {
  if (filter.includeClients && !filter.includeClients.has(entry.client))
    return false;
  return !filter.excludeClients?.has(entry.client);
}

function passesTools(entry: ToolEntry, filter: ToolFilter): boolean {
  if (filter.includeTools && !toolSetHas(filter.includeTools, entry))
    return false;
  return !(filter.excludeTools && toolSetHas(filter.excludeTools, entry));
}

function passesAllowance(
  entry: ToolEntry,
  allowance: ToolFilter["allowance"],
): boolean {
  if (!allowance) return true;
  const allowed = allowance.get(entry.client);
  return allowed === "*" || (allowed !== undefined && allowed.has(entry.tool));
}

/** Whether an entry passes the filter. No filter means: every direct tool (code-mode tools hidden). */
export function isVisible(
  entry: ToolEntry,
  filter: ToolFilter | undefined,
): boolean {
  if (!filter) return !entry.codeMode;
  return (
    passesClients(entry, filter) &&
    passesTools(entry, filter) &&
    passesAllowance(entry, filter.allowance) &&
    (filter.includeCodeMode === true || !entry.codeMode)
  );
}

type HeaderBag = Readonly<
  Record<string, string | readonly string[] | undefined>
>;

function headerValues(headers: HeaderBag, name: string): string[] | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const joined = typeof raw === "string" ? raw : raw.join(",");
  const values = joined
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
  return values.length === 0 ? undefined : values;
}

/**
 * One tool reference from a header as an aggregated name or `<client>_*`. Client names have
 * no hyphen, so `<client>-<tool>` splits on the first hyphen; a value without a hyphen is
 * already `<client>_<tool>` or `<client>_*`. When the client names are known, a value that
 * starts with `<known client>_` is taken as the underscore form even if the tool name holds
 * a hyphen (`my_api_get-x`).
 */
export function normaliseToolRef(
  value: string,
  clients?: ReadonlySet<string>,
): string {
  const hyphen = value.indexOf("-");
  if (hyphen <= 0) return value;
  const client = value.slice(0, hyphen);
  if (clients && !clients.has(client)) {
    for (const c of clients) if (value.startsWith(`${c}_`)) return value;
  }
  const tool = value.slice(hyphen + 1);
  return tool === "*" ? clientWildcard(client) : aggregateName(client, tool);
}

/**
 * The ToolFilter of a request's `x-bf-mcp-*` headers (names lower-case, as node gives them).
 * Values are comma-separated; a header that is absent or empty does not filter. A client
 * list holding "*" does not restrict either.
 */
export function parseToolHeaders(
  headers: HeaderBag,
  clients?: ReadonlySet<string>,
): ToolFilter {
  const filter: { -readonly [K in keyof ToolFilter]: ToolFilter[K] } = {};
  const inc = headerValues(headers, TOOL_FILTER_HEADERS.includeClients);
  if (inc && !inc.includes("*")) filter.includeClients = new Set(inc);
  const exc = headerValues(headers, TOOL_FILTER_HEADERS.excludeClients);
  if (exc) filter.excludeClients = new Set(exc);
  const incTools = headerValues(headers, TOOL_FILTER_HEADERS.includeTools);
  if (incTools)
    filter.includeTools = new Set(
      incTools.map((v) => normaliseToolRef(v, clients)),
    );
  const excTools = headerValues(headers, TOOL_FILTER_HEADERS.excludeTools);
  if (excTools)
    filter.excludeTools = new Set(
      excTools.map((v) => normaliseToolRef(v, clients)),
    );
  return filter;
}
