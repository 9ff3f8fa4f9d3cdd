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
    await startInTurns(Array.from({ length: 40 }, (_, index) => index), async () => {
      started += 1;
    }, 16);
    await watching;
    expect(startedBeforeTurn).toEqual([16, 32, 40, 40]);
  });

  describe('when a request fails', () => {
    const unhandled = watchUnhandledRejections();

    it('rejects with the first failure, still starts every request, and leaves no rejection unhandled', async () => {
      const started: number[] = [];
      const outcome = startInTurns(Array.from({ length: 40 }, (_, index) => index), async (item) => {
        started.push(item);
        if (item === 1 || item === 30) throw new Error(`request ${item} failed`);
        return item;
      }, 8);
      await expect(outcome).rejects.toThrow('request 1 failed');
      await nextTurn();
      await nextTurn();
      expect(started).toHaveLength(40);
      expect(unhandled).toEqual([]);
    });
  });
});
