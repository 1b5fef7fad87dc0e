import { describe, expect, test } from "vitest";

import { parseConfig } from "../config/load.js";
import { createLogger, LOG_CENSOR } from "./logger.js";

function capture(logLevel: "debug" | "info" | "warn") {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(
    parseConfig({ server: { log_level: logLevel } }),
    {
      destination: {
        write: (s: string) =>
          lines.push(JSON.parse(s) as Record<string, unknown>),
      },
    },
  );
  return { logger, lines };
}

describe("createLogger", () => {
  test("writes one JSON object per event at the level of server.log_level", () => {
    const { logger, lines } = capture("warn");
    logger.info("hidden");
    logger.warn({ client: { name: "a" } }, "shown");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: "shown",
      service: "toolgate",
      client: { name: "a" },
    });
    expect(typeof lines[0]?.time).toBe("string");
  });

  test("censors credential headers of logged requests and responses", () => {
    const { logger, lines } = capture("info");
    logger.info(
      {
        req: {
          headers: {
            authorization: "Bearer abc",
            "x-api-key": "k",
            accept: "*/*",
          },
        },
      },
      "r",
    );
    expect(lines[0]?.req).toEqual({
      headers: {
        authorization: LOG_CENSOR,
        "x-api-key": LOG_CENSOR,
        accept: "*/*",
      },
    });
  });
});
