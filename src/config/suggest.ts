import { distance } from 'fastest-levenshtein';

/**
 * The candidate a mistyped word most likely meant, or undefined when none is close: the
 * same word in another case first (`depth2locations`), then the nearest by edit distance,
 * allowing about one edit in three letters (`DISPLY`, `agess`). Two neighbouring letters
 * swapped, the commonest slip (`tpye`, `aegs`), count as one edit.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const sameCase = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const edits = swapsTwoLetters(lower, candidate.toLowerCase()) ? 1 : distance(lower, candidate.toLowerCase());
    // One- and two-letter codes are all one edit apart: only a case slip is a clue there.
    const allowed = candidate.length <= 2 ? 0 : Math.max(1, Math.floor(candidate.length / 3));
    if (edits <= allowed && edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return best;
}

/** Whether `a` is `b` with two neighbouring letters swapped. */
function swapsTwoLetters(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const first = [...a].findIndex((letter, index) => letter !== b[index]);
  return (
    first >= 0 && a[first] === b[first + 1] && a[first + 1] === b[first] && a.slice(first + 2) === b.slice(first + 2)
  );
}

/** `did you mean DISPLAY?`, or undefined when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const match = suggest(word, candidates);
  return match === undefined ? undefined : `did you mean ${match}?`;
}
