import { describe, expect, it } from "vitest";

import { classifyCode } from "./auto-exec.js";
import { callerCatalog } from "./catalog.js";
import { testRegistry } from "./test-catalog.js";

// weather: only get-forecast is auto; math: every tool is auto.
const catalog = callerCatalog(testRegistry(), {});

describe("auto-execution of executeToolCode (SPEC 9.5)", () => {
  it.each([
    ["result = math.add(a=1, b=2)", "auto"],
    [
      'r = weather.get_forecast(city="Oslo")\nresult = math.add(a=r["temperature"], b=1)',
      "auto",
    ],
    [
      "total = 0\nfor i in range(3):\n    total = math.add(a=total, b=i)\nresult = total",
      "auto",
    ],
    [
      "def f(x):\n    return math.add(a=x, b=x)\nresult = [f(i) for i in range(3)]",
      "auto",
    ],
    ['result = weather.alerts(region="north")', "manual"],
    ['r = math.add(a=1, b=2)\nresult = weather.alerts(region="r")', "manual"],
    ["result = weather.pass_()", "manual"],
    ["result = weather.unknown_tool()", "manual"],
    ["m = math\nresult = m.add(a=1, b=2)", "manual"],
    ['f = getattr(math, "add")\nresult = f(a=1, b=2)', "manual"],
    ["f = math.add\nresult = f(a=1, b=2)", "manual"],
    [
      "def g(server):\n    return server.add(a=1, b=1)\nresult = g(math)",
      "manual",
    ],
    ["result = [s.add(a=1, b=1) for s in [math]]", "manual"],
    ["result = math.add(a=weather.alerts(), b=1)", "manual"],
    ['math = {"add": 1}\nresult = math.get("add")', "auto"],
    ["print('no tools at all')\nresult = 1", "auto"],
    ["result = json.encode(math.add(a=1, b=2))", "auto"],
    ["result = math.add(a=1, b=", "auto"],
    ["result = github.search(q=1)", "auto"],
  ])("classifies %j as %s", (code, expected) => {
    expect(classifyCode(code, catalog)).toBe(expected);
  });

  it("treats arguments that carry no code as manual", () => {
    expect(classifyCode(undefined, catalog)).toBe("manual");
    expect(classifyCode(42, catalog)).toBe("manual");
  });
});
