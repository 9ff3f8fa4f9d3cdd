/**
 * How many requests of one `startInTurns` may be started and not yet answered: more than the requests in flight at the
 * default overall bound (DEFAULT_MAX_CONCURRENCY), so the transport never waits for one to be prepared. Each started
 * request holds its exchange and its waits until it is answered; started all at once, the thousands of a large plan
 * outlived the young generation of the heap and were copied and promoted by the garbage collector (bench/NOTES.md).
 */
export const STARTED_AHEAD = 512;

/**
 * `Promise.all(items.map(start))`, but the requests are started a few per turn of the event
 * loop, and at most `ahead` of them unanswered at a time. Started all at once, a thousand requests are all prepared
 * (paths built, bodies serialized) before the first one leaves, and the transport waits for all of it; started a
 * few per turn, the first ones are on the wire at once and the rest are prepared while they
 * are in flight, with the answers that arrive meanwhile read in between. The results come
 * back in the order of `items`. The first failure (in time) rejects the whole, as with
 * Promise.all, and no request is started after it: the whole has failed, so the rest would
 * be asked for nothing. Requests already started run on; their outcomes are dropped.
 * The scheduler is the seam of that performance choice: the first write of a large apply
 * leaves sooner (bench/NOTES.md).
 */
export function startInTurns<T, R>(
  items: readonly T[],
  start: (item: T) => Promise<R>,
  perTurn = 16,
  ahead = STARTED_AHEAD,
): Promise<R[]> {
  return new Promise<R[]>((resolve, reject) => {
    const results = new Array<R>(items.length);
    let unanswered = items.length;
    let next = 0;
    let open = 0;
    let scheduled = false;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    // The next turn starts more, once there are more to start and room for a turn's worth (or half of `ahead`).
    const refillAt = Math.max(ahead - perTurn, Math.floor(ahead / 2));
    const schedule = (): void => {
      if (scheduled || failed || next >= items.length || open > refillAt) return;
      scheduled = true;
      setImmediate(startSome);
    };
    const startSome = (): void => {
      scheduled = false;
      const end = Math.min(items.length, next + perTurn);
      while (next < end && open < ahead && !failed) {
        const index = next;
        next += 1;
        let started: Promise<R>;
        try {
          started = start(items[index] as T);
        } catch (error) {
          fail(error);
          return;
        }
        open += 1;
        started.then((result) => {
          results[index] = result;
          unanswered -= 1;
          open -= 1;
          if (unanswered === 0) resolve(results);
          else schedule();
        }, fail);
      }
      schedule();
    };
    if (items.length === 0) resolve(results);
    else startSome();
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
