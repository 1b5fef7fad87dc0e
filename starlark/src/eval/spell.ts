// "Did you mean" suggestions for the evaluator, on the resolver's edit-distance search
// (resolve/spell.ts, starlark-go's internal/spell), so both report the same nearest name.
import { nearest as nearestName } from "../resolve/spell.js";

/** The nearest candidate, or undefined when none is close enough. */
export function nearest(
  x: string,
  candidates: Iterable<string>,
): string | undefined {
  const n = nearestName(x, candidates);
  return n === "" ? undefined : n;
}

export function didYouMean(x: string, candidates: Iterable<string>): string {
  const n = nearest(x, candidates);
  return n === undefined ? "" : ` (did you mean .${n}?)`;
}
