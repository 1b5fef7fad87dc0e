/** Structured logs (pino), one JSON event per line. */
import { pino } from "pino";

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export function createLogger(level: string = "info"): Logger {
  return pino({ name: "toolgate-operator", level });
}

/** A logger that drops everything, for tests and library use. */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
