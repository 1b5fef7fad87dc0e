/** The agent loop over Chat Completions (`/chat/completions`). */
import { z } from "zod";

import { denialText, parseDenial } from "./denial.js";
import type { Dialect, Json, ToolCall } from "./types.js";

const ToolCallWire = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string(),
    arguments: z.string().default(""),
  }),
});

const Message = z.looseObject({
  role: z.string().optional(),
  content: z.unknown().optional(),
  tool_calls: z.array(ToolCallWire).nullish(),
});

const Completion = z.looseObject({
  choices: z.array(z.looseObject({ message: Message.optional() })).default([]),
  usage: z.looseObject({}).nullish(),
});

type Completion = z.infer<typeof Completion>;

function parse(response: Json): Completion {
  const r = Completion.safeParse(response);
  // A response that is not a completion carries no tool calls: the loop returns it as it is.
  return r.success ? r.data : { choices: [] };
}

function firstMessage(response: Json): z.infer<typeof Message> | undefined {
  return parse(response).choices[0]?.message;
}

function wireCall(c: ToolCall): Json {
  return {
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: c.arguments },
  };
}

function rewriteDenials(messages: readonly Json[]): readonly Json[] {
  let out: Json[] | undefined;
  const names = new Map<string, string>();
  messages.forEach((m, i) => {
    if (m.role === "assistant") {
      for (const tc of Message.safeParse(m).data?.tool_calls ?? [])
        names.set(tc.id, tc.function.name);
      return;
    }
    if (m.role !== "tool") return;
    const denial = parseDenial(m.content);
    if (!denial) return;
    out ??= [...messages];
    const id = typeof m.tool_call_id === "string" ? m.tool_call_id : "";
    out[i] = { ...m, content: denialText(names.get(id), denial) };
  });
  return out ?? messages;
}

export const chatDialect: Dialect = {
  apiPath: "/chat/completions",

  prepare(body) {
    const { stream: _stream, stream_options: _opts, ...rest } = body;
    const messages = Array.isArray(body.messages)
      ? (body.messages as Json[])
      : [];
    return { ...rest, messages: rewriteDenials(messages) };
  },

  toolCalls(response) {
    return (firstMessage(response)?.tool_calls ?? []).map((tc) => ({
      id: tc.id,
      name: tc.function.name,
      arguments: tc.function.arguments,
    }));
  },

  appendTurn(request, response, results) {
    const msg = firstMessage(response);
    const assistant: Json = {
      role: "assistant",
      content: msg?.content ?? null,
      tool_calls: (msg?.tool_calls ?? []).map((tc) => ({
        ...tc,
        type: "function",
      })),
    };
    const tools = results.map((r) => ({
      role: "tool",
      tool_call_id: r.call.id,
      content: r.text,
    }));
    const messages = Array.isArray(request.messages)
      ? (request.messages as Json[])
      : [];
    return { ...request, messages: [...messages, assistant, ...tools] };
  },

  keepCalls(response, calls) {
    const choices = Array.isArray(response.choices)
      ? (response.choices as Json[])
      : [];
    const first = choices[0];
    const msg = firstMessage(response);
    if (!first || !msg?.tool_calls || msg.tool_calls.length === calls.length)
      return response;
    const keep = new Set(calls.map((c) => c.id));
    const tool_calls = msg.tool_calls.filter((tc) => keep.has(tc.id));
    const message = { ...(first.message as Json), tool_calls };
    const finish = tool_calls.length === 0 ? { finish_reason: "stop" } : {};
    return {
      ...response,
      choices: [{ ...first, ...finish, message }, ...choices.slice(1)],
    };
  },

  mixed(response, content, pending) {
    return {
      ...response,
      choices: [
        {
          index: 0,
          finish_reason: "stop",
          message: {
            role: "assistant",
            content,
            tool_calls: pending.map(wireCall),
          },
        },
      ],
    };
  },

  usage(response) {
    return parse(response).usage ?? undefined;
  },

  withUsage(response, usage) {
    return { ...response, usage };
  },
};
