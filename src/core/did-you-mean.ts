/**
 * Suggestions for a misspelt name (a rule id, a config key): the closest
 * known name by edit distance, when it is close enough to be a typo.
 */

/** Edit distance (insertions, deletions, substitutions) between two short strings. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** ` (did you mean "x"?)` for the closest known name, or '' when none is close. */
export function didYouMean(given: string, known: Iterable<string>): string {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(given.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  // Close enough to be a typo: a third of the name, at least two edits.
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? ` (did you mean "${best}"?)` : '';
}
