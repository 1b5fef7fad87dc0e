import { describe, expect, it } from "vitest";

import { resolve } from "../resolve/resolver.js";
import type { Node } from "./ast.js";
import { ALL_OPTIONS, parse } from "./parser.js";
import { findObjectUses, walk } from "./walk.js";

describe("walk", () => {
  it("visits every node once, parents first, in source order", () => {
    const file = parse(
      "w.star",
      "def f(a, b=1):\n  return [x + a for x in b if x]\nf(lambda y: y, k=f'{z}')\n",
      {
        fstrings: true,
      },
    );
    const names: string[] = [];
    const seen = new Set<Node>();
    walk(file, (n) => {
      expect(seen.has(n)).toBe(false);
      seen.add(n);
      if (n.kind === "Ident") names.push(n.name);
    });
    expect(names).toEqual([
      "f",
      "a",
      "b",
      "x",
      "a",
      "x",
      "b",
      "x",
      "f",
      "y",
      "y",
      "z",
    ]);
  });

  it("skips a node's children when the visitor returns false", () => {
    const file = parse("w.star", "f(g(h))\n");
    const names: string[] = [];
    walk(file, (n) => {
      if (n.kind === "Ident") names.push(n.name);
      return !(n.kind === "PositionalArg");
    });
    expect(names).toEqual(["f"]);
  });
});

describe("findObjectUses", () => {
  const servers = new Set(["github", "slack"]);
  const isServer = (n: string): boolean => servers.has(n);

  it("lists object.method(...) calls, including nested ones in arguments", () => {
    const file = parse(
      "c.star",
      'r = github.search(q=slack.lookup(name="x"))\nfor i in [1]:\n  github.create_issue(title=f"{i}")\n',
      ALL_OPTIONS,
    );
    const uses = findObjectUses(file, isServer);
    expect(
      uses.calls.map((c) => `${c.object}.${c.method}@${c.pos.line}`),
    ).toEqual(["github.search@1", "slack.lookup@1", "github.create_issue@3"]);
    expect(uses.escapes).toEqual([]);
  });

  it("reports other uses of a watched object as escapes", () => {
    const file = parse(
      "c.star",
      "s = github\nf = github.search\ngetattr(slack, 'x')()\n",
    );
    const uses = findObjectUses(file, isServer);
    expect(uses.calls).toEqual([]);
    expect(uses.escapes.map((e) => `${e.object}@${e.pos.line}`)).toEqual([
      "github@1",
      "github@2",
      "slack@3",
    ]);
  });

  it("ignores names the script rebinds once the file is resolved", () => {
    const file = parse(
      "c.star",
      "def f(github):\n  return github.search()\nslack.post()\n",
    );
    expect(resolve(file, isServer, () => false)).toEqual([]);
    const uses = findObjectUses(file, isServer);
    expect(uses.calls.map((c) => `${c.object}.${c.method}`)).toEqual([
      "slack.post",
    ]);
    expect(uses.escapes).toEqual([]);
  });
});
