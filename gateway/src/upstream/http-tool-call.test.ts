import { describe, expect, test } from "vitest";

import { answerFromSse } from "./http-tool-call.js";

describe("answerFromSse", () => {
  test("finds the answer after a priming event and a notification", () => {
    const body = [
      "id: a\ndata: \n",
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"note":"tg-7"}}\n',
      'event: message\nid: b\ndata: {"result":{"content":[]},"jsonrpc":"2.0","id":"tg-7"}\n',
      "",
    ].join("\n");
    expect(answerFromSse(body, "tg-7")).toEqual({
      result: { content: [] },
      jsonrpc: "2.0",
      id: "tg-7",
    });
  });

  test("joins multi-line data fields and accepts CRLF", () => {
    const body =
      'data: {"jsonrpc":"2.0",\r\ndata: "id":"tg-1","result":{}}\r\n\r\n';
    expect(answerFromSse(body, "tg-1")).toEqual({
      jsonrpc: "2.0",
      id: "tg-1",
      result: {},
    });
  });

  test("skips an event that only mentions the id and reads a final event without a trailing blank line", () => {
    const body =
      'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"tg-9"}}\r\n\r\nevent: message\r\ndata: {"jsonrpc":"2.0","id":"tg-9","result":{"content":[{"type":"text","text":"ok"}]}}';
    expect(answerFromSse(body, "tg-9")).toEqual({
      jsonrpc: "2.0",
      id: "tg-9",
      result: { content: [{ type: "text", text: "ok" }] },
    });
  });

  test("does not take the answer of another id that starts the same way", () => {
    expect(
      answerFromSse(
        'data: {"jsonrpc":"2.0","id":"tg-10","result":{}}\n\n',
        "tg-1",
      ),
    ).toBeUndefined();
  });

  test("returns undefined when the stream holds no answer for the id", () => {
    expect(
      answerFromSse(
        'data: {"jsonrpc":"2.0","id":"tg-2","result":{}}\n\n',
        "tg-3",
      ),
    ).toBeUndefined();
  });
});
