// A name one or two edits away from a real one is a typo worth naming: a variable (ETCD_PROBE_ENDPIONTS)
// or a flag (--endpoint). Farther ones are not guessed at.

/** Levenshtein distance: insertions, deletions and substitutions of one character each. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(current + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

/** The candidate at most 2 edits from `name`, the nearest first; null when none is that near. */
export function nearest(name: string, candidates: readonly string[]): string | null {
  const best = candidates.map((c) => ({ c, d: editDistance(name, c) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= 2 ? best.c : null;
}
