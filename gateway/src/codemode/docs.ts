/**
 * getToolDocs: everything a model needs to call one tool well: the full description, every
 * parameter (type, required or optional, description), the result shape when the tool
 * declares an `outputSchema`, how results are converted, and an example call.
 */
import { type Catalog, type CatalogServer, findTool } from "./catalog.js";
import { MetaToolError } from "./errors.js";
import { isIdentifier } from "./identifiers.js";
import {
  asSchema,
  exampleValue,
  type Param,
  paramsOf,
  pyType,
} from "./python-types.js";

function serverOf(catalog: Catalog, name: string): CatalogServer {
  const server = catalog.find(name);
  if (server) return server;
  const names = catalog.servers.map((s) => s.name);
  throw new MetaToolError(
    `unknown server "${name}"; available servers: ${names.length > 0 ? names.join(", ") : "none"}`,
  );
}

function paramLine(p: Param): string {
  const desc = p.description
    ? ` - ${p.description.replace(/\s+/g, " ").trim()}`
    : "";
  return `  ${p.name}: ${pyType(p.schema)} (${p.required ? "required" : "optional, default None"})${desc}`;
}

function resultShape(outputSchema: unknown): string[] {
  const schema = asSchema(outputSchema);
  if (!schema) {
    return [
      "Result: the tool declares no output schema. The call returns its structured content as a dict",
      "when it sends some, else its text parsed as JSON when the text is JSON, else the text (a str).",
      "Print the result once (print(r)) to learn its shape before relying on keys.",
    ];
  }
  const fields = paramsOf(schema).map(
    (f) =>
      `  ${f.name}: ${pyType(f.schema)} (${f.required ? "always present" : "may be missing: use .get()"})${f.description ? ` - ${f.description}` : ""}`,
  );
  return [
    "Result: a dict (the tool's structured content) with these keys:",
    ...(fields.length > 0 ? fields : [`  ${pyType(schema)}`]),
  ];
}

function example(
  server: string,
  tool: string,
  params: readonly Param[],
): string {
  const required = params.filter((p) => p.required);
  const shown = required.length > 0 ? required : params.slice(0, 1);
  const args = params.every((p) => isIdentifier(p.name))
    ? shown.map((p) => `${p.name}=${exampleValue(p.schema, p.name)}`).join(", ")
    : `{${shown.map((p) => `${JSON.stringify(p.name)}: ${exampleValue(p.schema, p.name)}`).join(", ")}}`;
  return `r = ${server}.${tool}(${args})`;
}

export function toolDocs(
  catalog: Catalog,
  serverName: string,
  toolName: string,
): string {
  const server = serverOf(catalog, serverName);
  const tool = findTool(server, toolName);
  if (!tool) {
    const names = [...server.tools.keys()];
    throw new MetaToolError(
      `server "${server.name}" has no tool "${toolName}" available to you; its tools: ${names.length > 0 ? names.join(", ") : "none"}`,
    );
  }
  const def = tool.entry.definition;
  const params = paramsOf(def.inputSchema);
  const title =
    def.title && def.title !== def.description ? ` - ${def.title}` : "";
  const lines = [`${server.name}.${tool.id}${title}`];
  if (tool.id !== tool.entry.tool)
    lines.push(
      `(MCP tool name "${tool.entry.tool}"; in code use ${server.name}.${tool.id})`,
    );
  lines.push("", def.description?.trim() || "No description.", "");
  lines.push(
    params.length > 0 ? "Parameters:" : "Parameters: none",
    ...params.map(paramLine),
  );
  if (params.some((p) => !isIdentifier(p.name)))
    lines.push(
      "Some parameter names are not identifiers: pass all arguments as one dict.",
    );
  lines.push("", ...resultShape(def.outputSchema), "");
  lines.push(
    "Example (in executeToolCode):",
    `  ${example(server.name, tool.id, params)}`,
    "  print(r)",
    "  result = r",
  );
  lines.push(
    "",
    "A failing call stops the script with the tool's error message; logs printed before it are returned.",
  );
  return lines.join("\n");
}
