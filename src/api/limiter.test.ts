import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, type Permit } from './limiter.js';

const instant = { now: () => 0, sleep: () => Promise.resolve() };

/** Lets queued promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ConcurrencyLimiter', () => {
  it('never lets more than the bound in flight, and serves waiters in order', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 2, ...instant });
    const order: number[] = [];
    const permits: Permit[] = [];
    const pending = [1, 2, 3, 4].map((n) =>
      limiter.acquire().then((permit) => {
        order.push(n);
        permits.push(permit);
      }),
    );
    await settle();
    expect(order).toEqual([1, 2]);
    expect(limiter.inFlight).toBe(2);
    permits[0]?.release('ok');
    permits[0]?.release('ok');
    await settle();
    expect(order).toEqual([1, 2, 3]);
    expect(limiter.inFlight).toBe(2);
    permits[1]?.release('ok');
    await Promise.all(pending);
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('once stopped (an interrupt), a first attempt waiting for a slot or for its turn at the rate never gets it: it is refused at once, a retry still gets its slot, and the slots stay counted', async () => {
    // The wait for a first attempt's turn at the rate ends only at the interrupt; a retry's at once.
    const sleep = (_ms: number, signal?: AbortSignal) =>
      signal === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 1, requestsPerSecond: 1, now: () => 0, sleep });
    (await limiter.acquire({ stoppable: true })).release('failed');
    // The first has the slot and waits for its turn at the rate; the second waits for the slot, and so does a retry,
    // ahead of it.
    const outcome = (permit: Promise<Permit>) =>
      permit.then(
        () => 'started',
        (error: Error) => error.message,
      );
    const waiting = [outcome(limiter.acquire({ stoppable: true })), outcome(limiter.acquire({ stoppable: true }))];
    await settle();
    const retry = limiter.acquire({ retry: true });
    limiter.stop();
    expect(await Promise.all(waiting)).toEqual([
      'not started: the limiter was stopped',
      'not started: the limiter was stopped',
    ]);
    expect(limiter.inFlight).toBe(1);
    (await retry).release('ok');
    expect(limiter.inFlight).toBe(0);
    await expect(limiter.acquire({ stoppable: true })).rejects.toThrow('not started: the limiter was stopped');
    expect(limiter.inFlight).toBe(0);
  });

  it('halves the bound once per burst of 429s, then wins it back one slot per window of successes', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 8, ...instant });
    const burst = await Promise.all(Array.from({ length: 8 }, () => limiter.acquire()));
    for (const permit of burst) permit.release('throttled');
    // All eight were in flight under the old bound: one decrease, not eight.
    expect(limiter.limit).toBe(4);

    const second = await limiter.acquire();
    second.release('throttled');
    expect(limiter.limit).toBe(2);

    const trace: number[] = [];
    for (let i = 0; i < 40 && limiter.limit < 8; i += 1) {
      (await limiter.acquire()).release('ok');
      trace.push(limiter.limit);
    }
    // Additive increase: 2 successes to reach 3, 3 more to reach 4, ... 7 more to reach 8.
    expect(trace.length).toBe(2 + 3 + 4 + 5 + 6 + 7);
    expect(trace.at(-1)).toBe(8);
    (await limiter.acquire()).release('ok');
    expect(limiter.limit).toBe(8);
  });

  it('never goes below one', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 2, ...instant });
    for (let i = 0; i < 5; i += 1) (await limiter.acquire()).release('throttled');
    expect(limiter.limit).toBe(1);
  });

  it('failures other than 429 leave the bound alone', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 3, ...instant });
    for (let i = 0; i < 5; i += 1) (await limiter.acquire()).release('failed');
    expect(limiter.limit).toBe(3);
    expect(limiter.inFlight).toBe(0);
  });

  it('spaces starts evenly to a requests-per-second limit, from when each really started: any R + 1 span a second and 10 ms', async () => {
    let clock = 1000;
    // Every other timer fires 7 ms late: spacing from when a start was due would let the next one go closer.
    let late = false;
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 10,
      requestsPerSecond: 4,
      now: () => clock,
      sleep: (ms) => {
        late = !late;
        clock += ms + (late ? 7 : 0);
        return Promise.resolve();
      },
    });
    const starts: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const permit = await limiter.acquire();
      starts.push(clock);
      permit.release('ok');
    }
    expect(starts[0]).toBe(1000);
    expect(starts[1]).toBe(1000 + 253 + 7);
    for (let i = 4; i < starts.length; i += 1)
      expect((starts[i] ?? 0) - (starts[i - 4] ?? 0)).toBeGreaterThanOrEqual(1010);
    // A late start is caught up by 2 ms, no more: the whole run is no slower than the timers made it.
    expect((starts.at(-1) ?? 0) - 1000).toBeLessThanOrEqual(11 * 253 + 6 * 7);
  });

  it('paced once requests have started (an account whose rate is read after its first list): spaced from then on, from when it was paced', async () => {
    let clock = 0;
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 10,
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    (await limiter.acquire()).release('ok');
    clock = 40;
    limiter.pace(4);
    expect(limiter.rate).toBe(4);
    const starts: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const permit = await limiter.acquire();
      starts.push(clock);
      permit.release('ok');
    }
    // The request that left unpaced counts: the first paced one waits a spacing from the moment of pacing.
    expect(starts).toEqual([40 + 251, 40 + 251 + 253, 40 + 251 + 2 * 253]);
    // The same rate again changes nothing; a rate out of bounds is refused as in the options.
    limiter.pace(4);
    expect((await limiter.acquire(), clock)).toBe(40 + 251 + 3 * 253);
    expect(() => limiter.pace(0)).toThrow(RangeError);
  });

  it('finds the rate the service allows: a quota answer while others succeed keeps the starts a little under it, then the rate grows linearly', async () => {
    let clock = 0;
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 8,
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    expect(limiter.rate).toBe(Number.POSITIVE_INFINITY);
    // Ten answers accepted within the last second, then a refusal: the service allows about 10 per second.
    for (let i = 0; i < 10; i += 1) {
      clock = i * 50;
      (await limiter.acquire()).release('ok');
    }
    clock = 600;
    (await limiter.acquire()).release('throttled');
    expect(limiter.rate).toBeCloseTo(9.5);
    expect(limiter.limit).toBe(8);

    // About 9.5 per second: each start about 1012 / 9.5 ms after the one before (the rate grows meanwhile).
    const starts: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      const permit = await limiter.acquire();
      starts.push(clock);
      permit.release('ok');
    }
    for (let i = 1; i < starts.length; i += 1)
      expect((starts[i] ?? 0) - (starts[i - 1] ?? 0)).toBeGreaterThanOrEqual(1012 / limiter.rate - 2);
    // Grown since the decrease by a tenth of 9.5 per second.
    expect(limiter.rate).toBeCloseTo(9.5 + 0.95 * ((clock - 600) / 1000));
  });

  it('a quota answer with Retry-After (the service said how long to wait) halves the bound and leaves the rate alone', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 8, ...instant });
    for (let i = 0; i < 5; i += 1) (await limiter.acquire()).release('ok');
    (await limiter.acquire()).release('paused');
    expect(limiter.rate).toBe(Number.POSITIVE_INFINITY);
    expect(limiter.limit).toBe(4);
  });

  it('starts at a configured rate, lowers it on a refusal and grows back to it, never above', async () => {
    let clock = 0;
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 4,
      requestsPerSecond: 20,
      now: () => clock,
      sleep: (ms) => ((clock += ms), Promise.resolve()),
    });
    for (let i = 0; i < 19; i += 1) (await limiter.acquire()).release('ok');
    (await limiter.acquire()).release('throttled');
    expect(limiter.rate).toBeCloseTo(19 * 0.95);
    for (let i = 0; i < 100; i += 1) (await limiter.acquire()).release('ok');
    expect(limiter.rate).toBe(20);
  });

  it('a refusal of a request started before the last decrease lowers nothing again', async () => {
    let clock = 0;
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 8, now: () => clock, sleep: () => Promise.resolve() });
    for (let i = 0; i < 5; i += 1) (await limiter.acquire()).release('ok');
    const burst = await Promise.all([limiter.acquire(), limiter.acquire()]);
    clock = 10;
    for (const permit of burst) permit.release('throttled');
    expect(limiter.rate).toBeCloseTo(4.75);
  });

  it('a retry takes its turn ahead of the first attempts waiting', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 1, ...instant });
    const held = await limiter.acquire();
    const order: string[] = [];
    const waiting = [
      limiter.acquire().then((permit) => (order.push('first'), permit.release('ok'))),
      limiter.acquire({ retry: true }).then((permit) => (order.push('retry'), permit.release('ok'))),
    ];
    held.release('ok');
    await Promise.all(waiting);
    expect(order).toEqual(['retry', 'first']);
  });

  it('rejects a bound that is not a positive whole number', () => {
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 0, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2.5, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond: 0, ...instant })).toThrow(RangeError);
  });

  it('rejects a rate that would pace nothing: so slow the timer overflows, or faster than timers keep', () => {
    for (const requestsPerSecond of [1e-9, 0.05, 1001, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond, ...instant })).toThrow(
        'requests per second must be from 0.1 to 1000',
      );
    }
    expect(new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond: 0.1, ...instant }).rate).toBe(0.1);
    expect(new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond: 1000, ...instant }).rate).toBe(1000);
  });
});
