/** The agent loop over the Responses API (`/responses`). */
import { z } from "zod";

import { denialText, parseDenial } from "./denial.js";
import type { Dialect, Json, ToolCall } from "./types.js";

const FunctionCall = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string().default(""),
});

const Output = z.array(z.looseObject({ type: z.string().optional() }));

function outputOf(response: Json): Json[] {
  const r = Output.safeParse(response.output);
  return r.success ? r.data : [];
}

function inputItems(input: unknown): Json[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  return Array.isArray(input) ? (input as Json[]) : [];
}

function rewriteDenials(input: unknown): unknown {
  if (!Array.isArray(input)) return input;
  const items = input as Json[];
  let out: Json[] | undefined;
  const names = new Map<string, string>();
  items.forEach((item, i) => {
    const fc = FunctionCall.safeParse(item);
    if (fc.success) {
      names.set(fc.data.call_id, fc.data.name);
      return;
    }
    if (item.type !== "function_call_output") return;
    const denial = parseDenial(item.output);
    if (!denial) return;
    out ??= [...items];
    const id = typeof item.call_id === "string" ? item.call_id : "";
    out[i] = { ...item, output: denialText(names.get(id), denial) };
  });
  return out ?? input;
}

export const responsesDialect: Dialect = {
  apiPath: "/responses",

  prepare(body) {
    const { stream: _stream, ...rest } = body;
    return body.input === undefined
      ? rest
      : { ...rest, input: rewriteDenials(body.input) };
  },

  toolCalls(response) {
    const calls: ToolCall[] = [];
    for (const item of outputOf(response)) {
      const fc = FunctionCall.safeParse(item);
      if (fc.success)
        calls.push({
          id: fc.data.call_id,
          name: fc.data.name,
          arguments: fc.data.arguments,
        });
    }
    return calls;
  },

  appendTurn(request, response, results) {
    const outputs = results.map((r) => ({
      type: "function_call_output",
      call_id: r.call.id,
      output: r.text,
    }));
    return {
      ...request,
      input: [...inputItems(request.input), ...outputOf(response), ...outputs],
    };
  },

  keepCalls(response, calls) {
    const keep = new Set(calls.map((c) => c.id));
    const output = outputOf(response);
    const kept = output.filter(
      (item) => item.type !== "function_call" || keep.has(String(item.call_id)),
    );
    return kept.length === output.length
      ? response
      : { ...response, output: kept };
  },

  mixed(response, content, pending) {
    const id = typeof response.id === "string" ? response.id : "resp";
    const message = {
      type: "message",
      id: `msg_${id}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "text", text: content }],
    };
    const calls = pending.map((c) => ({
      type: "function_call",
      id: `fc_${c.id}`,
      status: "completed",
      role: "assistant",
      call_id: c.id,
      name: c.name,
      arguments: c.arguments,
    }));
    return { ...response, status: "completed", output: [message, ...calls] };
  },

  usage(response) {
    const u = response.usage;
    return typeof u === "object" && u !== null && !Array.isArray(u)
      ? (u as Json)
      : undefined;
  },

  withUsage(response, usage) {
    return { ...response, usage };
  },
};
