/**
 * `Promise.all(items.map(start))`, but the requests are started a few per turn of the event
 * loop. Started all at once, a thousand requests are all prepared (paths built, bodies
 * serialized) before the first one leaves, and the transport waits for all of it; started a
 * few per turn, the first ones are on the wire at once and the rest are prepared while they
 * are in flight, with the answers that arrive meanwhile read in between. The results come
 * back in the order of `items`. The first failure (in time) rejects the whole, as with
 * Promise.all, and no request is started after it: the whole has failed, so the rest would
 * be asked for nothing. Requests already started run on; their outcomes are dropped.
 * The scheduler is the seam of that performance choice: the first write of a large apply
 * leaves sooner (bench/NOTES.md).
 */
export function startInTurns<T, R>(items: readonly T[], start: (item: T) => Promise<R>, perTurn = 16): Promise<R[]> {
  return new Promise<R[]>((resolve, reject) => {
    const results = new Array<R>(items.length);
    let unanswered = items.length;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    const startFrom = (first: number): void => {
      const end = Math.min(items.length, first + perTurn);
      for (let index = first; index < end && !failed; index += 1) {
        let started: Promise<R>;
        try {
          started = start(items[index] as T);
        } catch (error) {
          fail(error);
          return;
        }
        started.then((result) => {
          results[index] = result;
          unanswered -= 1;
          if (unanswered === 0) resolve(results);
        }, fail);
      }
      if (end < items.length && !failed) setImmediate(startFrom, end);
    };
    if (items.length === 0) resolve(results);
    else startFrom(0);
  });
}

/** Answers waiting for their turn (see answerTurn), first come first served. */
const waitingAnswers: Array<() => void> = [];

function takeAnswerTurn(): void {
  waitingAnswers.shift()?.();
  if (waitingAnswers.length > 0) setImmediate(takeAnswerTurn);
}

/**
 * Resolves in a turn of the event loop of its own, after the network events that came
 * meanwhile: one answer is parsed, checked and planned per turn. Answers arrive several at
 * once; handled back to back, the last one freed its connection only after all the others
 * were processed, and the requests waiting for those connections left that much later. With
 * a turn each, every answer that has arrived frees its connection (and the next request
 * leaves) before any is processed. The seam of that choice: a large plan reads its audiences
 * faster (bench/NOTES.md).
 */
export function answerTurn(): Promise<void> {
  return new Promise((resolve) => {
    waitingAnswers.push(resolve);
    if (waitingAnswers.length === 1) setImmediate(takeAnswerTurn);
  });
}
