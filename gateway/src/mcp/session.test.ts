import { describe, expect, test } from "vitest";

import { isOriginAllowed } from "./origin.js";
import { SessionSigner } from "./session.js";

describe("SessionSigner", () => {
  test("verifies its own ids and returns the bound key", () => {
    const s = new SessionSigner("a-secret-of-enough-length");
    const id = s.issue("vk1", "2025-06-18", 1000);
    expect(s.verify(id)).toEqual({
      keyId: "vk1",
      protocolVersion: "2025-06-18",
      issuedAt: 1000,
    });
  });

  test("accepts an id issued by another process with the same secret", () => {
    const id = new SessionSigner("shared-secret-0123456789").issue(
      undefined,
      "2025-03-26",
    );
    expect(
      new SessionSigner("shared-secret-0123456789").verify(id)?.keyId,
    ).toBe("");
  });

  test.each([
    [
      "another secret",
      (id: string) => id,
      new SessionSigner("another-secret-9876543210"),
    ],
    [
      "an altered payload",
      (id: string) =>
        id.replace(
          /^v1\.(.)/,
          (_m, c: string) => `v1.${c === "A" ? "B" : "A"}`,
        ),
      undefined,
    ],
    ["a cut signature", (id: string) => id.slice(0, -2), undefined],
    ["a wrong version tag", (id: string) => id.replace(/^v1/, "v2"), undefined],
    ["garbage", () => "not-a-session", undefined],
  ])("refuses %s", (_what, mutate, verifier) => {
    const s = new SessionSigner("a-secret-of-enough-length");
    expect(
      (verifier ?? s).verify(mutate(s.issue("vk1", "2025-06-18"))),
    ).toBeUndefined();
  });
});

describe("isOriginAllowed", () => {
  test.each([
    ["http://localhost:6274", [], true],
    ["http://127.0.0.1:3000", [], true],
    ["http://[::1]:80", [], true],
    ["https://evil.example", [], false],
    ["https://app.example", ["https://app.example"], true],
    ["https://other.example", ["https://app.example"], false],
    ["https://any.example", ["*"], true],
    ["null", [], false],
  ])("%s with %j: %s", (origin, allowed, expected) => {
    expect(isOriginAllowed(origin, allowed)).toBe(expected);
  });
});
