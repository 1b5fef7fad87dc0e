/**
 * The virtual `.pyi` files of code mode (SPEC 10.2): `servers/<server>.pyi` per code-mode client
 * (binding level `server`) or `servers/<server>/<tool>.pyi` per tool (`tool`). Each file is a
 * usage comment followed by one compact signature per tool with a trailing `#` comment, so
 * a model learns a whole server from a few lines.
 */
import type { ToolEntry } from "../registry/types.js";
import {
  type Catalog,
  type CatalogServer,
  type CatalogTool,
  findTool,
} from "./catalog.js";
import { MetaToolError } from "./errors.js";
import { isIdentifier } from "./identifiers.js";
import { asSchema, paramsOf, pyType } from "./python-types.js";

export type BindingLevel = "server" | "tool";

/** Comments longer than this are cut: the full text is in getToolDocs. */
const MAX_COMMENT = 160;

function summary(entry: ToolEntry): string {
  const text = (entry.definition.description ?? entry.definition.title ?? "")
    .replace(/\s+/g, " ")
    .trim();
  const first = /^(.+?[.!?])(\s|$)/.exec(text)?.[1] ?? text;
  return first.length > MAX_COMMENT
    ? `${first.slice(0, MAX_COMMENT - 3)}...`
    : first;
}

/** `def get_sum(a: float, b: float) -> Any: ...  # Returns the sum of two numbers (MCP name: get-sum)` */
export function signatureLine(tool: CatalogTool): string {
  const def = tool.entry.definition;
  const params = paramsOf(def.inputSchema);
  const returns = asSchema(def.outputSchema) ? "dict" : "Any";
  const notes: string[] = [];
  let args: string;
  if (params.every((p) => isIdentifier(p.name))) {
    args = params
      .map(
        (p) => `${p.name}: ${pyType(p.schema)}${p.required ? "" : " = None"}`,
      )
      .join(", ");
  } else {
    // Keyword arguments cannot spell these names: the tool takes its arguments as one dict.
    args = "args: dict";
    notes.push(
      `pass one dict with keys ${params.map((p) => JSON.stringify(p.name) + (p.required ? "" : " (optional)")).join(", ")}`,
    );
  }
  if (tool.id !== tool.entry.tool) notes.push(`MCP name: ${tool.entry.tool}`);
  const text = summary(tool.entry);
  const comment =
    notes.length > 0 ? `${text}${text ? " " : ""}(${notes.join("; ")})` : text;
  return `def ${tool.id}(${args}) -> ${returns}: ...  # ${comment || "no description"}`;
}

function usage(
  server: CatalogServer,
  example: CatalogTool | undefined,
): string[] {
  const call = example
    ? `${server.name}.${example.id}(...)`
    : `${server.name}.<tool>(...)`;
  return [
    `# Tools of the MCP server "${server.name}". In executeToolCode the global object \`${server.name}\` has them as`,
    `# methods: r = ${call} with keyword arguments (or one dict). Calls are synchronous and`,
    `# return a dict (structured result or JSON text), else the text. Optional parameters default to None.`,
    `# Details, result shape and an example: getToolDocs(server="${server.name}", tool="<tool>").`,
  ];
}

export function filePath(
  level: BindingLevel,
  server: CatalogServer,
  tool?: CatalogTool,
): string {
  return level === "server" || !tool
    ? `servers/${server.name}.pyi`
    : `servers/${server.name}/${tool.id}.pyi`;
}

/** Every file of the catalogue, in listing order. */
export function allFiles(catalog: Catalog, level: BindingLevel): string[] {
  if (level === "server") return catalog.servers.map((s) => filePath(level, s));
  return catalog.servers.flatMap((s) =>
    [...s.tools.values()].map((t) => filePath(level, s, t)),
  );
}

/** listToolFiles: the tree of virtual files. */
export function fileTree(catalog: Catalog, level: BindingLevel): string {
  if (catalog.servers.length === 0)
    return "servers/ (empty: no code-mode server is available to you)";
  const lines = ["servers/"];
  for (const s of catalog.servers) {
    if (level === "server") {
      lines.push(`  ${s.name}.pyi`);
      continue;
    }
    lines.push(`  ${s.name}/`);
    for (const t of s.tools.values()) lines.push(`    ${t.id}.pyi`);
  }
  return lines.join("\n");
}

function unknownFile(
  fileName: string,
  catalog: Catalog,
  level: BindingLevel,
): MetaToolError {
  const files = allFiles(catalog, level);
  const list =
    files.length > 0
      ? files.join(", ")
      : "none (no code-mode server is available to you)";
  return new MetaToolError(
    `unknown file "${fileName}"; available files: ${list}. Call listToolFiles to see the tree.`,
  );
}

/** The lines of one file; server names and tool names match case-insensitively. */
export function fileLines(
  fileName: string,
  catalog: Catalog,
  level: BindingLevel,
): string[] {
  const path = fileName.trim().replace(/^\.?\//, "");
  const m =
    level === "server"
      ? /^servers\/([^/]+)\.pyi$/i.exec(path)
      : /^servers\/([^/]+)\/([^/]+)\.pyi$/i.exec(path);
  const server = m?.[1] === undefined ? undefined : catalog.find(m[1]);
  if (!m || !server) throw unknownFile(fileName, catalog, level);
  const tools = [...server.tools.values()];
  if (level === "server")
    return [...usage(server, tools[0]), ...tools.map(signatureLine)];
  const tool = findTool(server, m[2] ?? "");
  if (!tool) throw unknownFile(fileName, catalog, level);
  return [...usage(server, tool), signatureLine(tool)];
}

/** readToolFile: lines startLine..endLine, 1-based and inclusive; endLine past the end is clamped. */
export function readLines(
  lines: readonly string[],
  fileName: string,
  startLine?: number,
  endLine?: number,
): string {
  const start = startLine ?? 1;
  const end = Math.min(endLine ?? lines.length, lines.length);
  if (start < 1)
    throw new MetaToolError(
      `startLine must be 1 or more (lines are numbered from 1); got ${start}`,
    );
  if (start > lines.length)
    throw new MetaToolError(
      `startLine ${start} is past the end of ${fileName}, which has ${lines.length} lines`,
    );
  if (endLine !== undefined && endLine < start)
    throw new MetaToolError(
      `endLine ${endLine} is before startLine ${start}; give endLine >= startLine`,
    );
  return lines.slice(start - 1, end).join("\n");
}

export { findTool };
