/**
 * Denials (SPEC 7): in the manual flow the caller answers a pending call it does not want to
 * run with a tool result whose content is the JSON object `{"denied": true}` (optionally with
 * a `"reason"`). Before the history goes to the model, such a result is rewritten into an
 * informative sentence, so the model learns the call was refused and why, rather than seeing
 * an error or an unexplained object. Any other tool result passes unchanged.
 */

interface Denial {
  readonly reason?: string;
}

/** The denial a tool result carries, if it is one. Cheap for ordinary results: no parse unless the text says "denied". */
export function parseDenial(content: unknown): Denial | undefined {
  if (typeof content !== "string" || !content.includes('"denied"'))
    return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return undefined;
  }
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    (parsed as { denied?: unknown }).denied !== true
  )
    return undefined;
  const reason = (parsed as { reason?: unknown }).reason;
  return typeof reason === "string" && reason.trim() !== ""
    ? { reason: reason.trim() }
    : {};
}

export function denialText(
  toolName: string | undefined,
  denial: Denial,
): string {
  const what = toolName ? `the tool call ${toolName}` : "this tool call";
  const why = denial.reason ? ` Reason given: ${denial.reason}.` : "";
  return `The user denied ${what}, so it was not executed.${why} Do not call it again for this request; continue without its result.`;
}
