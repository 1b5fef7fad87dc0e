import { describe, expect, test } from "vitest";

import {
  ChatBody,
  parseBody,
  ResponsesBody,
  wellFormedChat,
  wellFormedResponses,
} from "./schemas.js";

const msg = { role: "user", content: "hi" };

const chatBodies: unknown[] = [
  { model: "p/m", messages: [msg] },
  {
    model: "p/m",
    messages: [msg],
    stream: true,
    stream_options: { include_usage: true },
    extra: { x: 1 },
  },
  {
    model: "p/m",
    messages: [msg],
    stream: null,
    stream_options: null,
    tools: null,
  },
  { model: "p/m", messages: [msg], stream_options: { include_usage: null } },
  {
    model: "p/m",
    messages: [msg],
    tools: [
      { type: "function", function: { name: "f", parameters: {} } },
      { type: "web_search" },
    ],
  },
  {
    model: "p/m",
    messages: [msg],
    tools: [{ type: "function", function: { name: "" } }],
  },
  {
    model: "p/m",
    messages: [msg],
    tools: [{ type: "function", function: "f" }],
  },
  { model: "p/m", messages: [msg], tools: [{ function: { name: "f" } }] },
  { model: "p/m", messages: [msg], tools: {} },
  { model: "p/m", messages: [msg], stream: "yes" },
  { model: "p/m", messages: [msg], stream_options: [] },
  { model: "p/m", messages: [msg], stream_options: { include_usage: 1 } },
  { model: "p/m", messages: [] },
  { model: "p/m", messages: [{ role: "" }] },
  { model: "p/m", messages: [{ content: "no role" }] },
  { model: "p/m", messages: [null] },
  { model: "p/m", messages: [[msg]] },
  { model: "p/m", messages: "hi" },
  { model: "", messages: [msg] },
  { model: 5, messages: [msg] },
  { messages: [msg] },
  [],
  null,
  "text",
];

const responsesBodies: unknown[] = [
  { model: "p/m" },
  { model: "p/m", input: "hi", stream: false },
  {
    model: "p/m",
    input: [
      { type: "message", role: "user", content: "hi" },
      { type: "function_call_output" },
    ],
  },
  {
    model: "p/m",
    input: [],
    tools: [{ type: "function", name: "f" }, { type: "web_search" }],
    stream: null,
  },
  { model: "p/m", tools: null },
  { model: "p/m", input: 5 },
  { model: "p/m", input: [1] },
  { model: "p/m", input: [[]] },
  { model: "p/m", input: null },
  { model: "p/m", tools: [{ type: "function", name: 5 }] },
  { model: "p/m", tools: [{ name: "f" }] },
  { model: "p/m", stream: 1 },
  { model: "" },
  {},
  [],
];

describe("request bodies: the hand checks and the zod schemas", () => {
  test.each(chatBodies.map((b) => [JSON.stringify(b), b]))(
    "agree on the chat body %s",
    (_text, body) => {
      expect(wellFormedChat(body)).toBe(ChatBody.safeParse(body).success);
    },
  );

  test.each(responsesBodies.map((b) => [JSON.stringify(b), b]))(
    "agree on the responses body %s",
    (_text, body) => {
      expect(wellFormedResponses(body)).toBe(
        ResponsesBody.safeParse(body).success,
      );
    },
  );

  test("a well-formed body is returned as it came, without a copy", () => {
    const body = { model: "p/m", messages: [msg], temperature: 0.2 };
    expect(parseBody(ChatBody, body, "chat completions", wellFormedChat)).toBe(
      body,
    );
  });

  test("a malformed body still gets zod's problems with their paths", () => {
    expect(() =>
      parseBody(
        ChatBody,
        { model: "p/m", messages: [{ role: "" }] },
        "chat completions",
        wellFormedChat,
      ),
    ).toThrow(/invalid chat completions request: messages\.0\.role/);
  });
});
