/**
 * tools/list against an upstream server: every page (following `nextCursor`), each tool
 * validated on its own so one bad definition does not hide the rest. The SDK's own
 * `listTools` rejects the whole answer when a single tool is malformed, so the raw result
 * is requested and checked here.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "pino";
import { z } from "zod";

const RawPage = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** A server that keeps returning cursors is cut off here rather than looping forever. */
export const MAX_TOOL_PAGES = 100;

export async function listToolsPage(
  client: Client,
  cursor: string | undefined,
  options: RequestOptions,
): Promise<z.infer<typeof RawPage>> {
  const params = cursor === undefined ? {} : { cursor };
  return client.request({ method: "tools/list", params }, RawPage, options);
}

/** The tool's validation problem, or undefined when it can be served. */
export function invalidToolReason(raw: unknown): string | undefined {
  const parsed = ToolSchema.safeParse(raw);
  if (!parsed.success)
    return parsed.error.issues
      .map((i) => `${i.path.join(".") || "tool"}: ${i.message}`)
      .join("; ");
  return undefined;
}

export async function discoverTools(
  client: Client,
  options: RequestOptions,
  log: Logger,
): Promise<Tool[]> {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await listToolsPage(client, cursor, options);
    for (const raw of result.tools) {
      const reason = invalidToolReason(raw);
      if (reason !== undefined) {
        const name =
          typeof raw === "object" && raw !== null && "name" in raw
            ? String(raw.name)
            : "(unnamed)";
        log.warn(
          { tool: name, problem: reason },
          "skipping a tool with an invalid definition",
        );
        continue;
      }
      const tool = raw as Tool;
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      tools.push(tool);
    }
    if (result.nextCursor === undefined || result.nextCursor === cursor)
      return tools;
    cursor = result.nextCursor;
  }
  log.warn(
    { pages: MAX_TOOL_PAGES },
    "tools/list kept returning cursors; using the tools listed so far",
  );
  return tools;
}
