import { describe, expect, it } from 'vitest';
import { watchUnhandledRejections } from '../../test/helpers/unhandled.js';
import { startInTurns } from './in-turns.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('startInTurns', () => {
  it('answers in the order of the items, each started once', async () => {
    const started: number[] = [];
    const items = Array.from({ length: 50 }, (_, index) => index);
    // Later items answer first: the order of the results must still be the items'.
    const results = await startInTurns(items, async (item) => {
      started.push(item);
      await new Promise((resolve) => setTimeout(resolve, (50 - item) % 7));
      return item * 2;
    });
    expect(results).toEqual(items.map((item) => item * 2));
    expect(started).toEqual(items);
  });

  it('answers an empty list at once', async () => {
    await expect(startInTurns([], async () => 1)).resolves.toEqual([]);
  });

  it('starts a few per turn of the event loop, so what started first goes out before the rest is prepared', async () => {
    const startedBeforeTurn: number[] = [];
    let started = 0;
    const watch = async () => {
      for (let turn = 0; turn < 4; turn += 1) {
        await nextTurn();
        startedBeforeTurn.push(started);
      }
    };
    const watching = watch();
    await startInTurns(
      Array.from({ length: 40 }, (_, index) => index),
      async () => {
        started += 1;
      },
      16,
    );
    await watching;
    expect(startedBeforeTurn).toEqual([16, 32, 40, 40]);
  });

  it('keeps at most `ahead` started and unanswered, and starts the next one as an answer comes', async () => {
    let open = 0;
    let most = 0;
    const items = Array.from({ length: 100 }, (_, index) => index);
    const results = await startInTurns(
      items,
      async (item) => {
        open += 1;
        most = Math.max(most, open);
        await new Promise((resolve) => setTimeout(resolve, item % 3));
        open -= 1;
        return item;
      },
      16,
      10,
    );
    expect(results).toEqual(items);
    expect(most).toBe(10);
  });

  describe('when a request fails', () => {
    const unhandled = watchUnhandledRejections();
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('rejects with the first failure, starts nothing after it, and leaves no rejection unhandled', async () => {
      const started: number[] = [];
      const outcome = startInTurns(
        Array.from({ length: 40 }, (_, index) => index),
        async (item) => {
          started.push(item);
          if (item === 1 || item === 5) throw new Error(`request ${item} failed`);
          await sleep(5);
          return item;
        },
        8,
      );
      await expect(outcome).rejects.toThrow('request 1 failed');
      await sleep(20);
      // The first turn's eight were already started when request 1 failed; no turn came after.
      expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      expect(unhandled).toEqual([]);
    });

    it('rejects with the failure that came first in time, not first in the list', async () => {
      const outcome = startInTurns([1, 2, 3], async (item) => {
        if (item === 1) {
          await sleep(30);
          throw new Error('request 1 failed');
        }
        if (item === 3) throw new Error('request 3 failed');
        await sleep(10);
        return item;
      });
      await expect(outcome).rejects.toThrow('request 3 failed');
    });

    it('rejects when starting a request throws, and starts nothing after it', async () => {
      const started: number[] = [];
      const outcome = startInTurns([1, 2, 3, 4], (item) => {
        started.push(item);
        if (item === 2) throw new Error('could not start 2');
        return Promise.resolve(item);
      });
      await expect(outcome).rejects.toThrow('could not start 2');
      expect(started).toEqual([1, 2]);
    });
  });
});
