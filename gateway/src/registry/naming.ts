/**
 * Aggregated names and tool lists. A tool is served as `<client_name>_<tool_name>` (SPEC
 * 4.1). Client names may contain underscores, so a name is never split on its first
 * underscore: the registry resolves it by lookup, and `splitAggregatedName` checks the known
 * client names, longest first.
 */

export function aggregateName(client: string, tool: string): string {
  return `${client}_${tool}`;
}

/** The `<client>_*` wildcard that stands for every tool of a client in tool filters. */
export function clientWildcard(client: string): string {
  return `${client}_*`;
}

/**
 * (client, tool) of an aggregated name given the client names in use, or undefined. When
 * several clients prefix the name (`my` and `my_api` for `my_api_get_x`) the longest wins,
 * since the shorter reading would need a tool whose name starts with the rest of the longer client.
 */
export function splitAggregatedName(
  name: string,
  clients: Iterable<string>,
): { client: string; tool: string } | undefined {
  let best: string | undefined;
  for (const c of clients) {
    if (
      name.length > c.length + 1 &&
      name.startsWith(c) &&
      name[c.length] === "_" &&
      (best === undefined || c.length > best.length)
    )
      best = c;
  }
  return best === undefined
    ? undefined
    : { client: best, tool: name.slice(best.length + 1) };
}

/** SPEC 2.1 tool lists: `["*"]` (or any list holding "*") = all, empty = none, otherwise exactly these. */
export type ToolSelector = (tool: string) => boolean;

const ALL: ToolSelector = () => true;
const NONE: ToolSelector = () => false;

export function toolSelector(
  list: readonly string[] | undefined,
): ToolSelector {
  if (!list || list.length === 0) return NONE;
  if (list.includes("*")) return ALL;
  const set = new Set(list);
  return (tool) => set.has(tool);
}
