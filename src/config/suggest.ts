import { distance } from 'fastest-levenshtein';

/**
 * The candidate a mistyped word most likely meant, or undefined when none is close: the
 * same word in another case first (`depth2locations`), then the nearest by edit distance,
 * allowing about one edit in three letters (`DISPLY`, `agess`).
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  const sameCase = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (sameCase !== undefined) return sameCase;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const edits = distance(lower, candidate.toLowerCase());
    // One- and two-letter codes are all one edit apart: only a case slip is a clue there.
    const allowed = candidate.length <= 2 ? 0 : Math.max(1, Math.floor(candidate.length / 3));
    if (edits <= allowed && edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return best;
}

/** `did you mean DISPLAY?`, or undefined when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const match = suggest(word, candidates);
  return match === undefined ? undefined : `did you mean ${match}?`;
}
