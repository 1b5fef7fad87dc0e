// "did you mean" suggestions, as starlark-go's internal/spell: the nearest candidate by
// edit distance, ignoring case and underscores, allowing up to 50% typos.

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

const fold = (s: string): string => s.replaceAll("_", "").toLowerCase();

export function nearest(x: string, candidates: Iterable<string>): string | undefined {
  const fx = fold(x);
  let bestD = Math.floor((fx.length + 1) / 2);
  let best: string | undefined;
  for (const c of candidates) {
    const d = levenshtein(fx, fold(c));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

export function didYouMean(x: string, candidates: Iterable<string>): string {
  const n = nearest(x, candidates);
  return n === undefined ? "" : ` (did you mean .${n}?)`;
}
