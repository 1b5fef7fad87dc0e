import { spawn } from "node:child_process";
import { createServer } from "node:net";

import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";

import { GatewayError } from "../errors.js";
import { classifyError, ClientConfigError } from "./classify.js";
import { RetryExhaustedError } from "./retry.js";

const coded = (code: string, message = code): Error =>
  Object.assign(new Error(message), { code });

describe("classifyError", () => {
  it.each([
    [
      "a refused connection",
      coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:1"),
    ],
    ["a connection timeout", coded("ETIMEDOUT")],
    ["an undici connect timeout", coded("UND_ERR_CONNECT_TIMEOUT")],
    ["an unreachable network", coded("ENETUNREACH")],
    ["a DNS failure", coded("ENOTFOUND", "getaddrinfo ENOTFOUND mcp.invalid")],
    ["a temporary DNS failure", coded("EAI_AGAIN")],
    ["a broken pipe", coded("EPIPE", "write EPIPE")],
    ["an I/O error", coded("EIO")],
    ["a connection reset", coded("ECONNRESET")],
    [
      "fetch failed caused by a refusal",
      new TypeError("fetch failed", { cause: coded("ECONNREFUSED") }),
    ],
    [
      "an aggregate of refusals",
      new TypeError("fetch failed", {
        cause: new AggregateError([
          coded("ECONNREFUSED"),
          coded("ECONNREFUSED"),
        ]),
      }),
    ],
    [
      "HTTP 500",
      new StreamableHTTPError(500, "Error POSTing to endpoint: boom"),
    ],
    ["HTTP 502", new StreamableHTTPError(502, "bad gateway")],
    ["HTTP 503", new SseError(503, "unavailable", undefined as never)],
    ["HTTP 504", new StreamableHTTPError(504, "gateway timeout")],
    ["HTTP 429", new StreamableHTTPError(429, "slow down")],
    [
      "an SSE POST failure with HTTP 502 in its text",
      new Error("Error POSTing to endpoint (HTTP 502): upstream"),
    ],
    [
      "the SDK's request timeout",
      new McpError(ErrorCode.RequestTimeout, "Request timed out"),
    ],
    [
      "a closed connection",
      new McpError(ErrorCode.ConnectionClosed, "Connection closed"),
    ],
    [
      "temporary unavailability in words",
      new Error("service temporarily unavailable"),
    ],
    ["an unknown error", new Error("something odd happened")],
  ])("treats %s as transient", (_, err) => {
    expect(classifyError(err)).toBe("transient");
  });

  it.each([
    ["HTTP 401", new StreamableHTTPError(401, "unauthorized")],
    ["HTTP 403", new SseError(403, "forbidden", undefined as never)],
    ["HTTP 400", new StreamableHTTPError(400, "bad request")],
    ["HTTP 405", new StreamableHTTPError(405, "method not allowed")],
    ["HTTP 422", new StreamableHTTPError(422, "unprocessable")],
    [
      "HTTP 401 in an SSE POST failure",
      new Error("Error POSTing to endpoint (HTTP 401): nope"),
    ],
    ["a missing command", coded("ENOENT", "spawn nope ENOENT")],
    [
      "permission denied on the command",
      coded("EACCES", "spawn /etc/passwd EACCES"),
    ],
    [
      "a cancelled request",
      new DOMException("This operation was aborted", "AbortError"),
    ],
    ["context deadline exceeded", new Error("context deadline exceeded")],
    ["context cancelled", new Error("context canceled")],
    ["authorization denied", new Error("authorization denied by policy")],
    ["invalid credentials", new Error("invalid credentials")],
    [
      "invalid configuration",
      new ClientConfigError(
        'MCP client "x": connection_string is not a valid URL',
      ),
    ],
    [
      "a missing environment variable",
      new GatewayError(
        "TG_ERR_CONFIG_ENV_MISSING",
        "environment variable X is not set",
      ),
    ],
    [
      "the SDK's UnauthorizedError",
      Object.assign(new Error("Unauthorized"), { name: "UnauthorizedError" }),
    ],
  ])("treats %s as permanent", (_, err) => {
    expect(classifyError(err)).toBe("permanent");
  });

  it("looks through a RetryExhaustedError to its cause", () => {
    expect(
      classifyError(
        new RetryExhaustedError(new StreamableHTTPError(401, "x"), 1, true),
      ),
    ).toBe("permanent");
    expect(
      classifyError(new RetryExhaustedError(coded("ECONNREFUSED"), 6, false)),
    ).toBe("transient");
  });

  it("classifies a real refused connection as transient", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const err = await fetch(`http://127.0.0.1:${port}/mcp`).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(classifyError(err)).toBe("transient");
  });

  it("classifies a real missing command as permanent", async () => {
    const err = await new Promise<unknown>((resolve) => {
      spawn("/nonexistent/toolgate-missing", []).on("error", resolve);
    });
    expect(classifyError(err)).toBe("permanent");
  });
});
