/**
 * Nesting depth of a JSON text, found by one scan of the raw string before JSON.parse, so a
 * body of a million `[` is refused without building (or recursing through) the structure.
 */

/** Default limit on nesting of objects and arrays in an /mcp request. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * The index just past the closing quote of the string that opens at `start`. Jumps from quote
 * to quote with indexOf (a quote is escaped when an odd run of backslashes precedes it): a
 * char-by-char loop took about 7 ms per MB of string content on the /mcp path.
 */
function skipString(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let b = quote - 1;
    while (b >= from && text.charCodeAt(b) === BACKSLASH) b--;
    if ((quote - 1 - b) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** True when the text nests objects/arrays deeper than `limit`. Malformed text is left to JSON.parse. */
export function exceedsDepth(
  text: string,
  limit: number = MAX_JSON_DEPTH,
): boolean {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = skipString(text, i);
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
    i++;
  }
  return false;
}
