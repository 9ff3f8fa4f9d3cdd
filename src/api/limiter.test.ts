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

  it('spaces request starts to the requests-per-second limit', async () => {
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
    expect(slept).toEqual([250, 500, 750]);
    for (const permit of permits) permit.release('ok');
    clock = 3000;
    (await limiter.acquire()).release('ok');
    expect(slept).toEqual([250, 500, 750]);
  });

  it('rejects a bound that is not a positive whole number', () => {
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 0, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2.5, ...instant })).toThrow(RangeError);
    expect(() => new ConcurrencyLimiter({ maxConcurrency: 2, requestsPerSecond: 0, ...instant })).toThrow(RangeError);
  });
});
