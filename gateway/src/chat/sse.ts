/**
 * Agent mode with `stream: true`: the loop needs whole responses to find tool calls, so it
 * runs without streaming, and the final answer (or mixed response) is then sent as a
 * well-formed SSE stream of that API: for Chat Completions one chunk with the whole message,
 * one with the finish reason, a usage chunk when `stream_options.include_usage` asked for
 * it, then `[DONE]`; for the Responses API the usual event sequence ending in
 * `response.completed`. The caller never sees a half-streamed answer, and an error before
 * the first byte is an ordinary HTTP error.
 */
import type { Json } from "../agent/index.js";

const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
const event = (type: string, data: Json): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v as Json[]) : [];
}

export function chatSse(response: Json, includeUsage: boolean): string {
  const base = {
    id: response.id,
    object: "chat.completion.chunk",
    created: response.created,
    model: response.model,
  };
  let out = "";
  for (const choice of arr(response.choices)) {
    const message = (choice.message ?? {}) as Json;
    const toolCalls = arr(message.tool_calls).map((tc, index) => ({
      index,
      ...tc,
    }));
    const delta: Json = { role: "assistant", content: message.content ?? null };
    if (toolCalls.length > 0) delta.tool_calls = toolCalls;
    out += frame({
      ...base,
      choices: [{ index: choice.index ?? 0, delta, finish_reason: null }],
    });
    out += frame({
      ...base,
      choices: [
        {
          index: choice.index ?? 0,
          delta: {},
          finish_reason: choice.finish_reason ?? "stop",
        },
      ],
    });
  }
  if (includeUsage && response.usage)
    out += frame({ ...base, choices: [], usage: response.usage });
  return `${out}data: [DONE]\n\n`;
}

function textParts(item: Json): { index: number; part: Json; text: string }[] {
  return arr(item.content)
    .map((part, index) => ({
      index,
      part,
      text: typeof part.text === "string" ? part.text : "",
    }))
    .filter((p) => p.text !== "");
}

export function responsesSse(response: Json): string {
  let seq = 0;
  const ev = (type: string, data: Json): string =>
    event(type, { sequence_number: seq++, ...data });
  let out = ev("response.created", {
    response: { ...response, status: "in_progress", output: [] },
  });
  arr(response.output).forEach((item, output_index) => {
    out += ev("response.output_item.added", { output_index, item });
    for (const { index, part, text } of textParts(item)) {
      const ids = { item_id: item.id, output_index, content_index: index };
      out += ev("response.content_part.added", {
        ...ids,
        part: { ...part, text: "" },
      });
      out += ev("response.output_text.delta", { ...ids, delta: text });
      out += ev("response.output_text.done", { ...ids, text });
      out += ev("response.content_part.done", { ...ids, part });
    }
    if (item.type === "function_call")
      out += ev("response.function_call_arguments.done", {
        item_id: item.id,
        output_index,
        arguments: item.arguments,
      });
    out += ev("response.output_item.done", { output_index, item });
  });
  return out + ev("response.completed", { response });
}
