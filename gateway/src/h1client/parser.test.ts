import { describe, expect, it } from "vitest";

import { ParseError } from "./failures.js";
import type { ResponseHead } from "./head.js";
import { ResponseParser } from "./parser.js";

/** Feeds `bytes` to a fresh parser in pieces cut at `cuts`, returning what it reported. */
function parse(bytes: Buffer, cuts: number[], maxHeaderBytes = 1024) {
  const out = { status: 0, body: [] as Buffer[], complete: 0, extra: 0 };
  const parser = new ResponseParser(
    {
      onHead: (head: ResponseHead) => (out.status = head.status),
      onBody: (chunk) => out.body.push(Buffer.from(chunk)),
      onComplete: () => out.complete++,
    },
    maxHeaderBytes,
  );
  parser.start(false);
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    out.extra += parser.execute(bytes.subarray(at, cut));
    at = cut;
  }
  return { ...out, text: Buffer.concat(out.body).toString("utf8") };
}

const chunk = (text: string, ext = ""): string =>
  `${Buffer.byteLength(text).toString(16)}${ext}\r\n${text}\r\n`;
const chunked = Buffer.from(
  "HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n" +
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" +
    `${chunk("Wiki", ";ext=1")}${chunk("pédia")}${chunk(" in\r\n\r\nchunks")}0\r\nx-t: 1\r\n\r\n`,
);
const lengthDelimited = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength("héllo!")}\r\n\r\nhéllo!`,
);

describe("ResponseParser", () => {
  it.each([
    ["a chunked body after a 103", chunked, "Wikipédia in\r\n\r\nchunks"],
    ["a Content-Length body", lengthDelimited, "héllo!"],
  ])("reads %s the same whichever byte it is cut at", (_name, bytes, body) => {
    for (let cut = 0; cut <= bytes.length; cut++) {
      const got = parse(bytes, [cut]);
      expect([cut, got.status, got.text, got.complete, got.extra]).toEqual([
        cut,
        200,
        body,
        1,
        0,
      ]);
    }
  });

  it("reads a chunked body fed one byte at a time", () => {
    const got = parse(
      chunked,
      Array.from({ length: chunked.length }, (_, i) => i),
    );
    expect([got.text, got.complete]).toEqual(["Wikipédia in\r\n\r\nchunks", 1]);
  });

  it("reports bytes after the end of the response as left over", () => {
    const got = parse(
      Buffer.concat([lengthDelimited, Buffer.from("junk")]),
      [],
    );
    expect([got.text, got.complete, got.extra]).toEqual(["héllo!", 1, 4]);
  });

  it("throws a ParseError for a missing CRLF after chunk data", () => {
    expect(() =>
      parse(
        Buffer.from(
          "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabc\r\n",
        ),
        [],
      ),
    ).toThrow(ParseError);
  });

  it("throws a ParseError for trailers larger than the head limit", () => {
    const bytes = Buffer.from(
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\nx: ${"a".repeat(300)}\r\ny: ${"b".repeat(300)}\r\n\r\n`,
    );
    expect(() => parse(bytes, [], 500)).toThrow(
      /trailers larger than the 500-byte limit/,
    );
  });
});
