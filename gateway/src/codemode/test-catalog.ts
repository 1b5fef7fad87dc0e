/**
 * Test data for the codemode unit tests: a real registry (AggregatedToolRegistry) holding
 * tool definitions shaped like real MCP servers', with an in-process invoker that answers
 * calls the way those servers do.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import { AggregatedToolRegistry, type ToolInvoker } from "../registry/index.js";

export const WEATHER_TOOLS: Tool[] = [
  {
    name: "get-forecast",
    description:
      "Returns the forecast for a city. Data comes from the national service.",
    inputSchema: {
      type: "object",
      properties: {
        days: { type: "integer", description: "Days ahead" },
        city: { type: "string", description: "City name" },
        units: {
          type: "string",
          enum: ["metric", "imperial"],
          description: "Unit system",
        },
      },
      required: ["city"],
    },
    outputSchema: {
      type: "object",
      properties: {
        temperature: { type: "number", description: "Celsius" },
        summary: { type: "string" },
      },
      required: ["temperature"],
    },
  },
  {
    name: "alerts",
    description: "Active weather alerts",
    inputSchema: { type: "object", properties: { region: { type: "string" } } },
  },
  {
    name: "pass",
    description: "A tool whose name is a keyword",
    inputSchema: { type: "object", properties: {} },
  },
];

export const MATH_TOOLS: Tool[] = [
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  {
    name: "odd-args",
    description: "Takes names that are not identifiers",
    inputSchema: {
      type: "object",
      properties: { "max-results": { type: "integer" } },
      required: ["max-results"],
    },
  },
];

function answer(
  entry: Parameters<ToolInvoker>[0],
  args: Record<string, unknown>,
): CallToolResult {
  if (entry.tool === "alerts" && args.region === "fail")
    return {
      content: [{ type: "text", text: "region not found" }],
      isError: true,
    };
  if (entry.tool === "alerts")
    return {
      content: [
        {
          type: "text",
          text: JSON.stringify([{ region: args.region ?? "all", level: 2 }]),
        },
      ],
    };
  return entry.tool === "add"
    ? {
        content: [
          { type: "text", text: String(Number(args.a) + Number(args.b)) },
        ],
      }
    : entry.tool === "get-forecast"
      ? {
          content: [{ type: "text", text: "{}" }],
          structuredContent: { temperature: 21.5, city: args.city ?? null },
        }
      : { content: [{ type: "text", text: `called ${entry.tool}` }] };
}

/** weather (code mode, auto: get-forecast), math (code mode, auto: all), plain (direct); `calls` notes each call. */
export function testRegistry(calls: string[] = []): AggregatedToolRegistry {
  const registry = new AggregatedToolRegistry((entry, args) => {
    calls.push(`${entry.name} ${JSON.stringify(args)}`);
    return Promise.resolve(answer(entry, args));
  });
  registry.setClient({
    id: "weather",
    name: "weather",
    codeMode: true,
    toolsToExecute: ["*"],
    toolsToAutoExecute: ["get-forecast"],
    tools: WEATHER_TOOLS,
  });
  registry.setClient({
    id: "math",
    name: "math",
    codeMode: true,
    toolsToExecute: ["*"],
    toolsToAutoExecute: ["*"],
    tools: MATH_TOOLS,
  });
  registry.setClient({
    id: "plain",
    name: "plain",
    codeMode: false,
    toolsToExecute: ["*"],
    toolsToAutoExecute: ["*"],
    tools: MATH_TOOLS,
  });
  return registry;
}
