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

  it('spaces request starts to the requests-per-second limit, less 1%', async () => {
    let clock = 1000;
    const slept: number[] = [];
    const limiter = new ConcurrencyLimiter({
      maxConcurrency: 10,
      requestsPerSecond: 4,
      now: () => clock,
      sleep: (ms) => {
        slept.push(ms);
        return Promise.resolve();
      },
    });
    const permits = await Promise.all(Array.from({ length: 4 }, () => limiter.acquire()));
    expect(slept.map(Math.round)).toEqual([253, 505, 758]);
    for (const permit of permits) permit.release('ok');
    clock = 3000;
    (await limiter.acquire()).release('ok');
    expect(slept).toHaveLength(3);
  });

  it('finds the rate the service allows: a quota answer while others succeed spaces the starts a little under it, then the rate grows linearly', async () => {
    let clock = 0;
    const slept: number[] = [];
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 8, now: () => clock, sleep: (ms) => (slept.push(ms), Promise.resolve()) });
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
    expect(slept).toEqual([]);

    const spaced = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(slept.map(Math.round)).toEqual([105, 211]);
    clock = 1600;
    for (const permit of spaced) permit.release('ok');
    // One second after the decrease the rate has grown by a tenth of 9.5.
    expect(limiter.rate).toBeCloseTo(10.45);
  });

  it('a quota answer with Retry-After (the service said how long to wait) halves the bound and leaves the rate alone', async () => {
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 8, ...instant });
    for (let i = 0; i < 5; i += 1) (await limiter.acquire()).release('ok');
    (await limiter.acquire()).release('paused');
    expect(limiter.rate).toBe(Number.POSITIVE_INFINITY);
    expect(limiter.limit).toBe(4);
  });

  it('starts just under a configured rate, lowers it on a refusal and grows back, never above', async () => {
    let clock = 0;
    const limiter = new ConcurrencyLimiter({ maxConcurrency: 4, requestsPerSecond: 20, now: () => clock, sleep: (ms) => ((clock += ms), Promise.resolve()) });
    for (let i = 0; i < 20; i += 1) (await limiter.acquire()).release('ok');
    (await limiter.acquire()).release('throttled');
    expect(limiter.rate).toBeLessThan(20);
    for (let i = 0; i < 100; i += 1) (await limiter.acquire()).release('ok');
    expect(limiter.rate).toBeCloseTo(19.8);
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
    const waiting = [limiter.acquire().then((permit) => (order.push('first'), permit.release('ok'))), limiter.acquire({ retry: true }).then((permit) => (order.push('retry'), permit.release('ok')))];
    held.release('ok');
    await Promise.all(waiting);
    expect(order).toEqual(['retry', 'first']);
  });

  it('rejects a bound that is not a positive whole number', () => {
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 0, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2.5, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond: 0, ...instant })).toThrow(RangeError);
  });
});
