import { describe, expect, it } from "vitest";

import {
  clientNameOf,
  envRef,
  headerSecretKey,
  normaliseClientRef,
  oauthSecretKey,
  virtualKeySecretKey,
} from "./names.js";

describe("clientNameOf", () => {
  it.each([
    ["web-search", "web_search"],
    ["myapi", "myapi"],
    ["tool123", "tool123"],
    ["a--b", "a__b"],
  ])("maps %s to the client name %s", (resource, client) => {
    expect(clientNameOf(resource)).toEqual({ ok: true, name: client });
  });

  it.each([
    ["9lives", "must not start with a digit"],
    ["0-day", "must not start with a digit"],
    ["api.v2", 'contains "."'],
  ])("rejects %s because it %s", (resource, why) => {
    const r = clientNameOf(resource);
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.message).toContain(why);
  });
});

describe("secret keys", () => {
  it("are valid environment variable names", () => {
    for (const key of [
      headerSecretKey("web_search", 3),
      oauthSecretKey("docs"),
      virtualKeySecretKey("team-a.prod"),
    ]) {
      expect(key).toMatch(/^[A-Z_][A-Z0-9_]*$/);
    }
  });

  it("keep virtual keys whose names differ only in '-' and '.' apart", () => {
    expect(virtualKeySecretKey("a-b")).not.toBe(virtualKeySecretKey("a.b"));
  });

  it("name the header by its index", () => {
    expect(headerSecretKey("web_search", 0)).toBe(
      "TG_MCPC_WEB_SEARCH_HEADER_0",
    );
    expect(envRef("X")).toBe("env.X");
  });

  it("accept a VirtualKey's client reference in either spelling", () => {
    expect(normaliseClientRef("web-search")).toBe("web_search");
    expect(normaliseClientRef("web_search")).toBe("web_search");
  });
});
