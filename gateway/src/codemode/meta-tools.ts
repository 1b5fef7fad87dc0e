/**
 * The four meta-tools as the model sees them (SPEC 4.7). Their descriptions are the prompt
 * that teaches code mode: discover with listToolFiles, read signatures with readToolFile,
 * optionally getToolDocs, then run one script with executeToolCode. Arguments are validated
 * with zod; a bad argument is answered as a tool error the model can fix.
 */
import { z } from "zod";

export const LIST_TOOL_FILES = "listToolFiles";
export const READ_TOOL_FILE = "readToolFile";
export const GET_TOOL_DOCS = "getToolDocs";
export const EXECUTE_TOOL_CODE = "executeToolCode";

export const META_TOOL_NAMES: readonly string[] = [
  LIST_TOOL_FILES,
  READ_TOOL_FILE,
  GET_TOOL_DOCS,
  EXECUTE_TOOL_CODE,
];

export interface MetaToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: {
    readonly type: "object";
    readonly properties: Readonly<Record<string, unknown>>;
    readonly required?: readonly string[];
  };
}

const WORKFLOW =
  "Code mode workflow: 1) listToolFiles to see the servers, 2) readToolFile to read their Python signatures, " +
  "3) optionally getToolDocs for one tool's parameters and result shape, 4) executeToolCode to run a script that calls the tools.";

export const DEFINITIONS: readonly MetaToolDefinition[] = [
  {
    name: LIST_TOOL_FILES,
    description: `Lists the virtual .pyi stub files that describe the tools of the code-mode MCP servers, as a tree (servers/<server>.pyi, or servers/<server>/<tool>.pyi per tool). Start here. ${WORKFLOW}`,
    inputSchema: { type: "object", properties: {} },
  },
  {
    name: READ_TOOL_FILE,
    description:
      "Reads one virtual .pyi file from listToolFiles: a usage comment, then one Python signature per tool with a trailing # comment saying what it does. " +
      "Required parameters come first; optional ones default to None. Use startLine/endLine (1-based, inclusive) to read part of a long file. " +
      `The server name in a signature file is the global object to call in executeToolCode. ${WORKFLOW}`,
    inputSchema: {
      type: "object",
      properties: {
        fileName: {
          type: "string",
          description:
            "Path from listToolFiles, e.g. servers/<server>.pyi or servers/<server>/<tool>.pyi",
        },
        startLine: {
          type: "integer",
          minimum: 1,
          description: "First line to return (1-based, inclusive); default 1",
        },
        endLine: {
          type: "integer",
          minimum: 1,
          description:
            "Last line to return (1-based, inclusive); default the last line",
        },
      },
      required: ["fileName"],
    },
  },
  {
    name: GET_TOOL_DOCS,
    description:
      "Detailed documentation of one tool: its full description, every parameter with type, required or optional and description, " +
      `the shape of its result, how to handle the response, and an example call. Use it when a signature is not enough. ${WORKFLOW}`,
    inputSchema: {
      type: "object",
      properties: {
        server: {
          type: "string",
          description: "Server name, as in servers/<server>.pyi",
        },
        tool: {
          type: "string",
          description: "Tool name as in the signature file",
        },
      },
      required: ["server", "tool"],
    },
  },
  {
    name: EXECUTE_TOOL_CODE,
    description:
      "Runs a Starlark script (a Python subset) that calls the tools and returns {result, logs}. Each code-mode server is a global object named after it; " +
      'call its tools synchronously with keyword arguments, e.g. r = server.tool(param=value) (or one dict: server.tool({"param": value})). No await is needed. ' +
      'A call returns a dict (use r["key"] or r.get("key")), or the text when the tool returns plain text; a failing call stops the script. ' +
      "Assign the value to return to the global variable `result`; print() output is returned in `logs`. " +
      "Available: Python-like syntax, def, if/for/while, dict and list operations, comprehensions, f-strings, print(), json.encode/json.decode. " +
      "Not available: import, classes, try/except, file I/O, network access other than the tools, random and time modules, process spawning. " +
      "The script is syntax-checked before it runs, and the whole run is bounded by the tool execution timeout. " +
      "Do as much as possible in one script (loops over tool calls, filtering, aggregation) and return only what you need. " +
      WORKFLOW,
    inputSchema: {
      type: "object",
      properties: {
        code: {
          type: "string",
          description:
            "The Starlark script; set `result` to the value to return",
        },
      },
      required: ["code"],
    },
  },
];

export const ReadToolFileArgs = z.object({
  fileName: z.string().min(1),
  startLine: z.int().min(1).optional(),
  endLine: z.int().min(1).optional(),
});

export const GetToolDocsArgs = z.object({
  server: z.string().min(1),
  tool: z.string().min(1),
});

export const ExecuteToolCodeArgs = z.object({ code: z.string() });

/** The first problem of invalid arguments, as one sentence for the model. */
export function argumentProblem(tool: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const path =
    issue && issue.path.length > 0 ? issue.path.join(".") : "arguments";
  return `invalid arguments for ${tool}: ${path}: ${issue?.message ?? "invalid"}`;
}
