/**
 * `Promise.all(items.map(start))`, but the requests are started a few per turn of the event
 * loop. Started all at once, a thousand requests are all prepared (paths built, bodies
 * serialized) before the first one leaves, and the transport waits for all of it; started a
 * few per turn, the first ones are on the wire at once and the rest are prepared while they
 * are in flight, with the answers that arrive meanwhile read in between. The results come
 * back in the order of `items`; the first rejection rejects the whole, as with Promise.all,
 * and every request is started all the same.
 */
export async function startInTurns<T, R>(items: readonly T[], start: (item: T) => Promise<R>, perTurn = 16): Promise<R[]> {
  const started: Promise<R>[] = [];
  for (const [index, item] of items.entries()) {
    if (index > 0 && index % perTurn === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const promise = start(item);
    // Promise.all takes these over below; until then, a rejection must not count as unhandled.
    promise.catch(() => undefined);
    started.push(promise);
  }
  return Promise.all(started);
}
