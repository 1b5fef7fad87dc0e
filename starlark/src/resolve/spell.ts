// "Did you mean" suggestions, as starlark-go's internal/spell: the candidate nearest to the
// misspelt name by Levenshtein distance, ignoring case and underscores, if fewer than half of
// the name's characters differ.

const fold = (s: string): string => s.replaceAll("_", "").toLowerCase();

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The candidate nearest to `x`, or "" if none is promising. Candidates are tried in order;
 * the first of equally near ones wins (callers sort them, as Go does). */
export function nearest(x: string, candidates: Iterable<string>): string {
  const fx = fold(x);
  let best = "";
  let bestD = Math.floor((fx.length + 1) / 2);
  for (const c of candidates) {
    const d = levenshtein(fx, fold(c));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}
