/**
 * The text of a mixed response (SPEC 4.5): a fixed opening, a JSON object mapping
 * `<client>_<tool>` to each executed result, and a fixed closing. Keys are sorted so the text
 * is the same for the same results; a tool called more than once maps to the list of its
 * results in call order, so no result overwrites another.
 */

export const MIXED_PREFIX = "The Output from allowed tools calls is - ";
export const MIXED_SUFFIX = "\n\nNow I shall call these tools next...";

export function mixedContent(
  executed: readonly { readonly label: string; readonly text: string }[],
): string {
  const grouped = new Map<string, string[]>();
  for (const { label, text } of executed) {
    const list = grouped.get(label);
    if (list) list.push(text);
    else grouped.set(label, [text]);
  }
  const out: Record<string, string | string[]> = {};
  for (const key of [...grouped.keys()].sort()) {
    const list = grouped.get(key) ?? [];
    out[key] = list.length === 1 ? (list[0] ?? "") : list;
  }
  return MIXED_PREFIX + JSON.stringify(out) + MIXED_SUFFIX;
}
