import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { watchUnhandledRejections } from '../../test/helpers/unhandled.js';
import { ApiError } from '../api/api-error.js';
import type { AdGroupLink, LiveAudience } from '../model/index.js';
import { readLiveState, type AccountReader } from './plan.js';

/** What the transport throws for a 2xx whose body lacks what the client needs. */
function unusableAnswer(id: number | string): ApiError {
  return new ApiError({
    service: 'audience',
    method: 'GET',
    path: `/openapi/v4/targetings/${id}`,
    kind: 'invalid-response',
    status: 200,
    reason: 'not an AudienceDetail: ages[0] must be equal to one of the allowed values',
    ambiguous: false,
    attempts: 1,
  });
}

/** Each request settles only when the test says so; `events` records starts and answers in order. */
function scriptedReader(audiences: LiveAudience[], links: Record<number, AdGroupLink[]> = {}) {
  const live = liveState(audiences, links);
  const events: string[] = [];
  const pending = new Map<string, () => void>();
  const held = <T>(name: string, value: () => T): Promise<T> => {
    events.push(`start ${name}`);
    return new Promise<T>((resolve, reject) => {
      pending.set(name, () => {
        events.push(`answer ${name}`);
        try {
          resolve(value());
        } catch (error) {
          reject(error);
        }
      });
    });
  };
  const reader: AccountReader = {
    list: async () => live.audiences,
    read: (id) =>
      held(`read ${id}`, () => {
        if (id === '13') throw new Error('read of 13 failed');
        if (id === '77') throw unusableAnswer(id);
        return live.details[String(id)]!;
      }),
    adGroups: (id) =>
      held(`links ${id}`, () => {
        if (id === '666') throw new Error('links of 666 failed');
        return live.links[String(id)] ?? [];
      }),
  };
  const settle = async (name: string) => {
    for (let turn = 0; turn < 10 && !pending.has(name); turn += 1)
      await new Promise((resolve) => setImmediate(resolve));
    const answer = pending.get(name);
    if (!answer) throw new Error(`${name} was never requested; requests so far: ${events.join(', ')}`);
    pending.delete(name);
    answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { reader, events, settle };
}

describe('readLiveState', () => {
  const unhandled = watchUnhandledRejections();

  it("reads an audience's ad groups as soon as its read shows a change, while the other reads are in flight", async () => {
    const audiences = [
      liveAudience(1, { name: 'changed' }),
      liveAudience(2, { name: 'same' }),
      liveAudience(3, { name: 'linked' }),
      liveAudience(4, { name: 'gone' }),
    ];
    const desired = desiredState(
      [
        desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }),
        desiredAudience({ name: 'same' }),
        desiredAudience({ name: 'linked' }, { adGroups: ['7'] }),
      ],
      {
        prune: true,
      },
    );
    const { reader, events, settle } = scriptedReader(audiences, {
      1: [adGroupLink(5)],
      3: [adGroupLink(7)],
      4: [adGroupLink(8)],
    });
    const reading = readLiveState(desired, reader);
    await settle('read 1');
    // The ad groups of the changed audience are asked for (and answered) while read 2 is still out.
    await settle('links 1');
    expect(events).not.toContain('answer read 2');
    for (const name of ['read 2', 'read 3', 'read 4', 'links 3', 'links 4']) await settle(name);
    const live = await reading;
    // The audience prune deletes is read too: the plan shows its whole definition.
    expect(Object.keys(live.details).sort()).toEqual(['1', '2', '3', '4']);
    // Known from the list: declared ad groups (3) and the audience prune deletes (4); from its read: the changed one
    // (1).
    expect(live.links).toEqual({ 1: [adGroupLink(5)], 3: [adGroupLink(7)], 4: [adGroupLink(8)] });
    expect(events.filter((event) => event.startsWith('start links')).sort()).toEqual([
      'start links 1',
      'start links 3',
      'start links 4',
    ]);
  });

  it('fails with a failed link read once the reads are in, and leaves no rejection unhandled', async () => {
    const desired = desiredState([
      desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }),
      desiredAudience({ name: 'same' }),
    ]);
    const { reader, settle } = scriptedReader([
      liveAudience(666, { name: 'changed' }),
      liveAudience(2, { name: 'same' }),
    ]);
    const reading = readLiveState(desired, reader);
    reading.catch(() => undefined);
    await settle('read 666');
    await settle('links 666');
    await settle('read 2');
    await expect(reading).rejects.toThrow('links of 666 failed');
    expect(unhandled).toEqual([]);
  });

  it("keeps an answer in a shape the plan cannot use as that audience's problem, and reads the others", async () => {
    const desired = desiredState([
      desiredAudience({ name: 'odd', genders: ['F'] }),
      desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }),
    ]);
    const { reader, events, settle } = scriptedReader([
      liveAudience(77, { name: 'odd' }),
      liveAudience(2, { name: 'changed' }),
    ]);
    const reading = readLiveState(desired, reader);
    await settle('read 77');
    await settle('read 2');
    await settle('links 2');
    const live = await reading;
    expect(Object.keys(live.details)).toEqual(['2']);
    expect(live.unreadable).toEqual({ 77: unusableAnswer(77).summary });
    expect(events).not.toContain('start links 77');
  });

  it('starts no link read after a read has failed', async () => {
    const desired = desiredState([
      desiredAudience({ name: 'broken' }),
      desiredAudience({ name: 'changed', ageType: 'NOT_ALL', ages: ['20'] }),
    ]);
    const { reader, events, settle } = scriptedReader([
      liveAudience(13, { name: 'broken' }),
      liveAudience(2, { name: 'changed' }),
    ]);
    const reading = readLiveState(desired, reader);
    reading.catch(() => undefined);
    await settle('read 13');
    await expect(reading).rejects.toThrow('read of 13 failed');
    // Read 2 answers after the plan failed, and shows a change: its ad groups are not asked for.
    await settle('read 2');
    expect(events).toContain('answer read 2');
    expect(events).not.toContain('start links 2');
    expect(unhandled).toEqual([]);
  });
});

describe('readLiveState, when one kind fails', () => {
  it('starts no audience read once the business lookup has failed: the plan has failed', async () => {
    const live = liveState([liveAudience(7, { name: 'a' }), liveAudience(8, { name: 'b' })]);
    const calls: string[] = [];
    const reader: AccountReader = {
      list: async () => {
        calls.push('list');
        await new Promise((resolve) => setTimeout(resolve, 5));
        return live.audiences;
      },
      read: async (id) => {
        calls.push(`read ${id}`);
        return live.details[String(id)]!;
      },
      adGroups: async (id) => {
        calls.push(`adGroups ${id}`);
        return [];
      },
    };
    const business = {
      lookup: async () => {
        calls.push('lookup');
        throw new Error('business API down');
      },
    };
    const desired = desiredState([desiredAudience({ name: 'a' }), desiredAudience({ name: 'b' })], {
      business: { registrationNumber: '120-81-47521', expected: {} },
    });
    await expect(readLiveState(desired, reader, { services: { business: () => business } })).rejects.toThrow(
      'business API down',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([...calls].sort()).toEqual(['list', 'lookup']);
  });
});
