/**
 * The versioned JSON envelope of every stored value and published message:
 * `{"v":1,"rev":<n>,"data":<value>}` (messages carry no `rev`). The envelope text is built by
 * the backends (the Redis one inside Lua, to bump `rev` atomically), always with `v` and
 * `rev` first, so the Lua scripts can read the revision with a pattern instead of decoding
 * a possibly large JSON document.
 */
import { GatewayError } from "../errors.js";

export const ENVELOPE_VERSION = 1;

/** Builds the stored text; `dataJson` is already JSON. Key order matters (see above). */
export function envelopeText(rev: number, dataJson: string): string {
  return `{"v":${ENVELOPE_VERSION},"rev":${rev},"data":${dataJson}}`;
}

const REV_PATTERN = /^\{"v":1,"rev":(\d+),/;

/** The revision of a stored text, 0 for a value this gateway did not write in envelope form. */
export function revisionOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const m = REV_PATTERN.exec(text);
  return m ? Number(m[1]) : 0;
}

function formatError(key: string, why: string): GatewayError {
  return new GatewayError(
    "TG_ERR_STATE_FORMAT",
    `state key "${key}" ${why}; this gateway reads envelope format v${ENVELOPE_VERSION} only. ` +
      "If a newer gateway wrote it, upgrade this one; otherwise delete the key.",
    { key },
  );
}

/** Decodes a stored text; throws TG_ERR_STATE_FORMAT naming the key for anything else. */
export function decodeStored(
  key: string,
  text: string,
): { rev: number; data: unknown } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw formatError(key, "does not hold JSON");
  }
  if (typeof parsed !== "object" || parsed === null || !("v" in parsed))
    throw formatError(key, "holds JSON without a version envelope");
  const { v, rev, data } = parsed as {
    v: unknown;
    rev?: unknown;
    data?: unknown;
  };
  if (v !== ENVELOPE_VERSION)
    throw formatError(key, `holds envelope format v${JSON.stringify(v)}`);
  if (typeof rev !== "number" || !Number.isInteger(rev) || rev < 1)
    throw formatError(key, "has no valid revision");
  return { rev, data };
}

/** A published message: `{"v":1,"data":...}`. */
export function encodeMessage(data: unknown): string {
  return `{"v":${ENVELOPE_VERSION},"data":${toJson(data)}}`;
}

/** The data of a message, or an Error saying why it was dropped (a handler cannot throw to the publisher). */
export function decodeMessage(
  channel: string,
  payload: string,
): { data: unknown } | Error {
  try {
    const parsed = JSON.parse(payload) as unknown;
    if (
      typeof parsed === "object" &&
      parsed !== null &&
      (parsed as { v?: unknown }).v === ENVELOPE_VERSION
    ) {
      return { data: (parsed as { data?: unknown }).data };
    }
    return new Error(
      `message on "${channel}" is not envelope format v${ENVELOPE_VERSION}; dropped`,
    );
  } catch {
    return new Error(`message on "${channel}" is not JSON; dropped`);
  }
}

/** JSON text of a value; `undefined` (not representable) is refused rather than stored as nothing. */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined)
    throw new TypeError(
      "the state store stores JSON values; undefined, functions and symbols cannot be stored",
    );
  return text;
}
