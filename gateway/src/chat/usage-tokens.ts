/**
 * Token counts for telemetry from what the provider sent: `usage` of a completion
 * (`prompt_tokens`/`completion_tokens`) or of a response (`input_tokens`/`output_tokens`);
 * in a stream, the chunk or `response.completed` event that carries it.
 */
import type { Tokens } from "./upstream-call.js";

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function tokensOfUsage(usage: unknown): Tokens | undefined {
  if (typeof usage !== "object" || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  const input = num(u.prompt_tokens) ?? num(u.input_tokens);
  const output = num(u.completion_tokens) ?? num(u.output_tokens);
  return input === undefined && output === undefined
    ? undefined
    : { input, output };
}

export function tokensOfBody(buf: Buffer): Tokens | undefined {
  try {
    const parsed = JSON.parse(buf.toString("utf8")) as Record<string, unknown>;
    return tokensOfUsage(parsed.usage);
  } catch {
    return undefined;
  }
}

/** Usage from the `data:` lines of SSE text, if any line carries it. */
export function tokensOfSse(text: string): Tokens | undefined {
  let found: Tokens | undefined;
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:") || !line.includes('"usage"')) continue;
    try {
      const ev = JSON.parse(line.slice(5)) as Record<string, unknown>;
      const response = ev.response as Record<string, unknown> | undefined;
      found =
        tokensOfUsage(ev.usage) ?? tokensOfUsage(response?.usage) ?? found;
    } catch {
      // A usage line split across network chunks: telemetry misses these tokens, the caller does not.
    }
  }
  return found;
}
