import { describe, expect, it } from 'vitest';
import { RequestGate, type GateRelease } from './gate.js';
import { ConcurrencyLimiter, type Permit } from './limiter.js';

/** Lets queued promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A sleep that ends only when its signal is aborted (a pause or a turn at the rate that a test holds). */
const held = (_ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve()));

describe('RequestGate', () => {
  it('lets at most its capacity in, in the order asked, a request marked ahead (a retry) first', async () => {
    const gate = new RequestGate(2);
    const order: string[] = [];
    const releases = new Map<string, GateRelease>();
    const enter = (name: string, ahead = false) =>
      gate.enter({ ahead }).then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    const entering = [enter('a'), enter('b'), enter('c'), enter('d'), enter('retry', true)];
    await settle();
    expect(order).toEqual(['a', 'b']);
    expect(gate).toMatchObject({ inFlight: 2, waiting: 3 });
    releases.get('a')?.();
    releases.get('a')?.();
    await settle();
    expect(order).toEqual(['a', 'b', 'retry']);
    expect(gate.inFlight).toBe(2);
    releases.get('b')?.();
    releases.get('retry')?.();
    await Promise.all(entering);
    expect(order).toEqual(['a', 'b', 'retry', 'c', 'd']);
  });

  it('a wait whose signal is aborted is refused and gives up its turn to the next', async () => {
    const gate = new RequestGate(1);
    const first = await gate.enter();
    const stopping = new AbortController();
    const refused = gate.enter({ signal: stopping.signal });
    const next = gate.enter();
    stopping.abort(new Error('interrupted'));
    await expect(refused).rejects.toThrow('interrupted');
    first();
    await next;
    expect(gate).toMatchObject({ inFlight: 1, waiting: 0 });
    await expect(gate.enter({ signal: stopping.signal })).rejects.toThrow('interrupted');
  });

  it('gives a place at once only when one is free and nobody waits for one, queueing nothing otherwise', async () => {
    const gate = new RequestGate(1);
    const first = gate.tryEnter();
    expect(first).toBeTypeOf('function');
    expect(gate.tryEnter()).toBeUndefined();
    const waiting = gate.enter();
    first?.();
    // The place freed went to the one waiting, not to whoever asks next.
    expect(gate.tryEnter()).toBeUndefined();
    (await waiting)();
    expect(gate).toMatchObject({ inFlight: 0, waiting: 0 });
    expect(gate.tryEnter()).toBeTypeOf('function');
  });

  it('rejects a capacity that is not a positive whole number', () => {
    expect(() => new RequestGate(0)).toThrow(RangeError);
    expect(() => new RequestGate(1.5)).toThrow(RangeError);
  });
});

describe('limiters of several accounts behind one gate', () => {
  const instant = { now: () => 0, sleep: () => Promise.resolve() };

  it('bounds the requests in flight of all accounts together, and each account by its own bound too', async () => {
    const gate = new RequestGate(3);
    const accounts = [1, 2].map(() => new ConcurrencyLimiter({ maxConcurrency: 2, gate, ...instant }));
    const permits: Permit[] = [];
    const pending = accounts.flatMap((limiter) =>
      Array.from({ length: 3 }, () => limiter.acquire().then((permit) => void permits.push(permit))),
    );
    await settle();
    expect(permits).toHaveLength(3);
    expect(accounts.map((limiter) => limiter.inFlight)).toEqual([2, 2]);
    expect(gate.inFlight).toBe(3);
    for (const permit of permits.splice(0)) permit.release('ok');
    await settle();
    expect(permits).toHaveLength(3);
    expect(gate.inFlight).toBe(3);
    for (const permit of permits.splice(0)) permit.release('ok');
    await Promise.all(pending);
    expect(gate.inFlight).toBe(0);
  });

  it("an account paused by the service (Retry-After) or waiting for its rate holds no place: another account's requests go on", async () => {
    const gate = new RequestGate(2);
    const paused = new ConcurrencyLimiter({ maxConcurrency: 8, gate, now: () => 0, sleep: held });
    const paced = new ConcurrencyLimiter({ maxConcurrency: 8, requestsPerSecond: 1, gate, now: () => 0, sleep: held });
    const free = new ConcurrencyLimiter({ maxConcurrency: 8, gate, ...instant });
    paused.pauseUntil(60_000);
    const waiting = Array.from({ length: 4 }, () => paused.acquire({ stoppable: true }).catch(() => 'stopped'));
    // The paced account's first start is due at once; those after it wait for their turn.
    (await paced.acquire()).release('ok');
    const pacing = Array.from({ length: 4 }, () => paced.acquire({ stoppable: true }).catch(() => 'stopped'));
    await settle();
    expect(gate.inFlight).toBe(0);
    for (let i = 0; i < 10; i += 1) {
      const permits = await Promise.all([free.acquire(), free.acquire()]);
      expect(gate.inFlight).toBe(2);
      for (const permit of permits) permit.release('ok');
    }
    paused.stop();
    paced.stop();
    expect(await Promise.all([...waiting, ...pacing])).toEqual(Array.from({ length: 8 }, () => 'stopped'));
    expect(gate.inFlight).toBe(0);
  });

  it("one account's quota answers lower its own bound and rate, never another's", async () => {
    let clock = 0;
    const gate = new RequestGate(16);
    const options = { maxConcurrency: 8, gate, now: () => clock, sleep: () => Promise.resolve() };
    const [refused, other] = [new ConcurrencyLimiter(options), new ConcurrencyLimiter(options)];
    for (let i = 0; i < 5; i += 1) {
      clock = i * 10;
      for (const limiter of [refused, other]) (await limiter.acquire()).release('ok');
    }
    (await refused.acquire()).release('throttled');
    (await refused.acquire()).release('paused');
    expect({ limit: refused.limit, rate: refused.rate }).toEqual({ limit: 4, rate: 5 * 0.95 });
    expect({ limit: other.limit, rate: other.rate }).toEqual({ limit: 8, rate: Number.POSITIVE_INFINITY });
  });

  it('a first attempt waiting for a place is refused at an interrupt and gives its account slot back; a retry goes ahead of it', async () => {
    const gate = new RequestGate(1);
    const busy = await gate.enter();
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 4, gate, ...instant });
    const order: string[] = [];
    const first = limiter.acquire({ stoppable: true }).then(
      (permit) => (order.push('first'), permit),
      () => (order.push('first refused'), undefined),
    );
    const retry = limiter.acquire({ retry: true }).then((permit) => (order.push('retry'), permit));
    await settle();
    expect(limiter.inFlight).toBe(2);
    limiter.stop();
    await first;
    expect(limiter.inFlight).toBe(1);
    busy();
    (await retry).release('ok');
    expect(order).toEqual(['first refused', 'retry']);
    expect({ account: limiter.inFlight, gate: gate.inFlight }).toEqual({ account: 0, gate: 0 });
  });

  it('a paced start held at the gate is spaced from when it got through, so the next one cannot bunch behind it', async () => {
    let clock = 0;
    const gate = new RequestGate(1);
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 4,
      requestsPerSecond: 4,
      gate,
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    const busy = await gate.enter();
    const first = limiter.acquire();
    await settle();
    // Another account's request holds the one place for 600 ms, past two of this account's intervals.
    clock = 600;
    busy();
    (await first).release('ok');
    const starts = [clock];
    for (let i = 0; i < 2; i += 1) {
      (await limiter.acquire()).release('ok');
      starts.push(clock);
    }
    // 253 ms apart (1012 ms / 4) from the start at 600, less the 2 ms a start may catch up: none at 600 with it.
    expect(starts).toEqual([600, 600 + 251, 600 + 251 + 253]);
  });
});
