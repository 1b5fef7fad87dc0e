import { describe, expect, test } from "vitest";

import { exceedsDepth } from "./json-depth.js";
import { classify, Message, readMessage, wellFormed } from "./jsonrpc.js";
import { RpcCode } from "./wire-errors.js";

describe("readMessage", () => {
  test.each([
    [
      "a request",
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      { kind: "request", id: 1, method: "tools/list", params: {} },
    ],
    [
      "a string id",
      '{"jsonrpc":"2.0","id":"a","method":"ping","params":{}}',
      { kind: "request", id: "a", method: "ping", params: {} },
    ],
    [
      "a notification",
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      { kind: "notification", method: "notifications/initialized", params: {} },
    ],
    [
      "a client response",
      '{"jsonrpc":"2.0","id":3,"result":{}}',
      { kind: "response" },
    ],
  ])("reads %s", (_what, text, expected) => {
    expect(readMessage(text)).toEqual(expected);
  });

  test.each([
    [
      "truncated JSON",
      '{"jsonrpc":"2.0","id":1,"meth',
      null,
      RpcCode.ParseError,
      /^Parse error/,
    ],
    ["an empty body", "", null, RpcCode.ParseError, /^Parse error/],
    [
      "a batch",
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      null,
      RpcCode.InvalidRequest,
      /batch requests are not supported/,
    ],
    [
      "a wrong version",
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      1,
      RpcCode.InvalidRequest,
      /jsonrpc must be "2.0"/,
    ],
    [
      "a numeric method",
      '{"jsonrpc":"2.0","id":1,"method":5}',
      1,
      RpcCode.InvalidRequest,
      /method/,
    ],
    [
      "array params",
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}',
      1,
      RpcCode.InvalidRequest,
      /params/,
    ],
    [
      "a fractional id",
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      null,
      RpcCode.InvalidRequest,
      /id/,
    ],
    [
      "no method and no result",
      '{"jsonrpc":"2.0","id":7}',
      7,
      RpcCode.InvalidRequest,
      /method is required/,
    ],
    [
      "a notification with an id",
      '{"jsonrpc":"2.0","id":2,"method":"notifications/initialized"}',
      2,
      RpcCode.InvalidRequest,
      /must not have an id/,
    ],
    ["a scalar body", "42", null, RpcCode.InvalidRequest, /Invalid request/],
    [
      "deep nesting",
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${"[".repeat(100)}${"]".repeat(100)}}}`,
      null,
      RpcCode.InvalidRequest,
      /nesting deeper than 64/,
    ],
  ])("refuses %s", (_what, text, id, code, message) => {
    const m = readMessage(text);
    expect(m.kind).toBe("invalid");
    if (m.kind !== "invalid") return;
    expect(m.id).toBe(id);
    expect(m.code).toBe(code);
    expect(m.message).toMatch(message);
  });
});

describe("exceedsDepth", () => {
  test.each([
    ["[[1]]", 2, false],
    ["[[[1]]]", 2, true],
    ['{"a":"[[[[[["}', 2, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['[{"a":[{}]}]', 4, false],
    ['[{"a":[{}]}]', 3, true],
    ['{"a":"\\\\","b":[[[1]]]}', 3, true],
    ['{"a":"x\\\\\\"[[[[","b":1}', 1, false],
    ['["abc\\\\\\\\"]]]', 1, false],
    ['"[[[', 1, false],
  ])("%s with limit %i exceeds: %s", (text, limit, expected) => {
    expect(exceedsDepth(text, limit)).toBe(expected);
  });

  /** The index of the closing quote of the string opening at `i`, char by char. */
  function referenceString(text: string, i: number): number {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    return j;
  }

  /** The obvious char-by-char scan, as the reference the fast one must agree with. */
  function reference(text: string, limit: number): boolean {
    let depth = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '"') i = referenceString(text, i);
      else if (c === "[" || c === "{") {
        if (++depth > limit) return true;
      } else if (c === "]" || c === "}") depth--;
    }
    return false;
  }

  test("agrees with a char-by-char scan on 5,000 random texts of quotes, backslashes and brackets", () => {
    const alphabet = ['"', "\\", "[", "]", "{", "}", "a"];
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let k = 0; k < 5000; k++) {
      let text = "";
      const length = next(40);
      for (let j = 0; j < length; j++) text += alphabet[next(alphabet.length)];
      const limit = next(4);
      expect(exceedsDepth(text, limit), JSON.stringify(text)).toBe(
        reference(text, limit),
      );
    }
  });
});

describe("the envelope fast path", () => {
  const envelopes: unknown[] = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "x", arguments: {} },
    },
    { jsonrpc: "2.0", id: "abc", method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 4, result: { ok: true } },
    { jsonrpc: "2.0", id: 4, error: { code: 1 } },
    { jsonrpc: "2.0", id: 1, method: "ping", extra: "ignored" },
    { jsonrpc: "2.0", id: 2 ** 53, method: "ping" },
    { jsonrpc: "2.0", id: -3, method: "ping" },
    { jsonrpc: "2.0", id: 1.5, method: "ping" },
    { jsonrpc: "2.0", id: null, method: "ping" },
    { jsonrpc: "2.0", id: true, method: "ping" },
    { jsonrpc: "2.0", id: 1, method: "" },
    { jsonrpc: "2.0", id: 1, method: 7 },
    { jsonrpc: "2.0", id: 1, method: "ping", params: [] },
    { jsonrpc: "2.0", id: 1, method: "ping", params: null },
    { jsonrpc: "2.0", id: 1, method: "ping", params: "x" },
    { jsonrpc: "1.0", id: 1, method: "ping" },
    { id: 1, method: "ping" },
    [],
    null,
    "text",
    12,
  ];

  test.each(envelopes.map((e) => [JSON.stringify(e), e]))(
    "agrees with the zod schema on %s",
    (_text, value) => {
      const zodOk = !Array.isArray(value) && Message.safeParse(value).success;
      // Accepting less than zod would only cost speed; accepting more would be a bug. On this table they agree exactly.
      expect(wellFormed(value)).toBe(zodOk);
    },
  );

  test("hands params through as sent, without a copy", () => {
    const params = { name: "echo", arguments: { message: "hi" } };
    const m = classify({ jsonrpc: "2.0", id: 9, method: "tools/call", params });
    expect(m).toEqual({ kind: "request", id: 9, method: "tools/call", params });
    expect(m.kind === "request" && m.params).toBe(params);
  });
});
