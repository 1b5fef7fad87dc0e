import { describe, expect, it } from "vitest";

import { createSealer } from "./sealing.js";

const KEY = "correct horse battery staple";
const tokens = {
  access_token: "at-123",
  refresh_token: "rt-456",
  expires_at: 1_800_000_000,
};

describe("sealing", () => {
  it("opens what it sealed, and the sealed form does not contain the secret", () => {
    const s = createSealer(KEY);
    const sealed = s.seal(tokens, "oauth-token:github");
    expect(JSON.stringify(sealed)).not.toContain("at-123");
    expect(s.open(sealed, "oauth-token:github")).toEqual(tokens);
  });

  it("uses a fresh IV for every value", () => {
    const s = createSealer(KEY);
    expect(s.seal(tokens, "k").ct).not.toBe(s.seal(tokens, "k").ct);
  });

  it("refuses a value moved to another key", () => {
    const s = createSealer(KEY);
    expect(() =>
      s.open(s.seal(tokens, "oauth-token:github"), "oauth-token:jira"),
    ).toThrow(/altered/);
  });

  it("refuses a tampered value", () => {
    const s = createSealer(KEY);
    const sealed = s.seal(tokens, "k");
    const ct = Buffer.from(sealed.ct, "base64url");
    ct[0] = (ct[0] ?? 0) ^ 1;
    expect(() =>
      s.open({ ...sealed, ct: ct.toString("base64url") }, "k"),
    ).toThrow(/altered/);
  });

  it("opens values sealed with an older key after rotation, and says which key is missing otherwise", () => {
    const old = createSealer("the previous key, 16+ chars");
    const sealed = old.seal(tokens, "k");
    expect(
      createSealer([KEY, "the previous key, 16+ chars"]).open(sealed, "k"),
    ).toEqual(tokens);
    expect(() => createSealer(KEY).open(sealed, "k")).toThrow(
      /another state.encryption_key \(key id [0-9a-f]{12}\)/,
    );
  });

  it("rejects a short key and a value that is not sealed", () => {
    expect(() => createSealer("short")).toThrow(/at least 16/);
    expect(() => createSealer(KEY).open({ access_token: "x" }, "k")).toThrow(
      /not a sealed value/,
    );
  });
});
