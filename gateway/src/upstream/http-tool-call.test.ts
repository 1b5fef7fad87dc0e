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
    expect(answerFromSse(body, "tg-7")).toEqual({ result: { content: [] }, jsonrpc: "2.0", id: "tg-7" });
  });

  test("joins multi-line data fields and accepts CRLF", () => {
    const body = 'data: {"jsonrpc":"2.0",\r\ndata: "id":"tg-1","result":{}}\r\n\r\n';
    expect(answerFromSse(body, "tg-1")).toEqual({ jsonrpc: "2.0", id: "tg-1", result: {} });
  });

  test("returns undefined when the stream holds no answer for the id", () => {
    expect(answerFromSse('data: {"jsonrpc":"2.0","id":"tg-2","result":{}}\n\n', "tg-3")).toBeUndefined();
  });
});
