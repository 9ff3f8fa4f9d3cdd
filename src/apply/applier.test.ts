import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/api-error.js';
import type { AudienceClient, BatchAnswer, DeleteManyResult } from '../api/audiences.js';
import { AppError, NOT_STARTED, OUTCOME_UNKNOWN } from '../errors.js';
import type { Long } from '../model/index.js';
import type {
  AdGroupUnlink,
  AudienceCreate,
  AudienceDelete,
  AudienceUpdate,
  Change,
  ChangeResult,
} from '../plan/index.js';
import { definition, planOf } from '../../test/helpers/builders.js';
import { applyPlan, verifyApplied } from './applier.js';
import type { ListedAfterWrites } from './kind.js';

/** A batch delete the service answered at once: no answer lost on the way. */
function answered(ids: Long[], answer: BatchAnswer): DeleteManyResult {
  return { deletedUnanswered: [], lostAnswer: null, sent: ids, answer };
}

/**
 * The service's batch delete can only be made to name an ad group id equal to another
 * audience's id with ids the emulator never hands out (its audiences start at 100001), so
 * these cases use a small in-memory account; the end-to-end tests cover the emulator.
 */
function account(options: {
  audiences: number[];
  deleteMany?: (ids: Long[]) => DeleteManyResult;
  failUnlink?: boolean;
}): AudienceClient & { present: Set<Long>; calls: string[] } {
  const present = new Set(options.audiences.map(String));
  const calls: string[] = [];
  const refuse = (what: string) => () => Promise.reject(new Error(`${what} is not expected here`));
  return {
    adAccountId: 1234,
    present,
    calls,
    list: async () =>
      [...present].map((id) => ({
        id,
        name: `audience ${id}`,
        audienceStatus: 'AVAILABLE' as const,
        type: 'DISPLAY' as const,
        createdDate: '',
        lastModifiedDate: '',
      })),
    read: refuse('read'),
    create: refuse('create'),
    update: refuse('update'),
    adGroups: refuse('adGroups'),
    delete: async (id) => {
      calls.push(`delete ${id}`);
      present.delete(id);
      return { verified: null };
    },
    deleteMany: async (ids) => {
      calls.push(`deleteMany ${ids.join(',')}`);
      return options.deleteMany?.(ids) ?? answered(ids, { successCount: ids.length, failCount: 0, errorMessages: [] });
    },
    unlink: async (id, adGroupId) => {
      calls.push(`unlink ${id} ${adGroupId}`);
      if (options.failUnlink) throw new Error(`ad group ${adGroupId} could not be released`);
      return { verified: null };
    },
  };
}

function deletion(id: number): AudienceDelete {
  return {
    action: 'delete',
    kind: 'audience',
    name: `audience ${id}`,
    id: String(id),
    before: definition({ name: `audience ${id}` }),
    after: null,
    kept: {},
    display: { impact: [] },
  };
}

function unlinking(id: number, adGroupId: number): AdGroupUnlink {
  return {
    action: 'unlink',
    kind: 'adGroupLink',
    name: `audience ${id}`,
    id: String(id),
    adGroupId: String(adGroupId),
    before: {
      adGroupId: String(adGroupId),
      adGroupName: 'ad group',
      adGroupStatus: ['LIVE'],
      campaignId: '11',
      campaignName: 'campaign',
    },
    after: null,
    display: { reason: 'audience-deleted' },
  };
}

describe('applyPlan: batch deletes', () => {
  it('charges a failure to the audience its message names first, not to an audience whose id equals a named ad group', async () => {
    // Audience 5 is in use by ad group 101; audience 101 is deleted. The message names both numbers.
    const client = account({
      audiences: [5, 101, 7],
      deleteMany: (ids) => {
        for (const id of ids.filter((candidate) => candidate !== '5')) client.present.delete(id);
        return answered(ids, {
          successCount: ids.length - 1,
          failCount: 1,
          errorMessages: ['audience 5: in use by ad groups 101, 7'],
        });
      },
    });
    const result = await applyPlan(planOf([deletion(5), deletion(101), deletion(7)]), { audiences: client });
    expect(result.results.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: '5', status: 'failed' },
      { id: '101', status: 'ok' },
      { id: '7', status: 'ok' },
    ]);
    expect(result.results[0]?.cause).toBe('audience 5: in use by ad groups 101, 7');
    expect(result.summary).toEqual({ ok: 2, verified: 0, failed: 1, unknown: 0, skipped: 0 });
  });

  it('reads the account again when the messages do not say which audience failed', async () => {
    const client = account({
      audiences: [1, 2, 3],
      deleteMany: (ids) => {
        client.present.delete('1');
        client.present.delete('3');
        return answered(ids, {
          successCount: ids.length - 1,
          failCount: 1,
          errorMessages: ['one audience could not be deleted'],
        });
      },
    });
    const result = await applyPlan(planOf([deletion(1), deletion(2), deletion(3)]), { audiences: client });
    expect(result.results.map((change) => change.status)).toEqual(['ok', 'failed', 'ok']);
    expect(result.results[1]?.cause).toBe('one audience could not be deleted');
  });

  it('skips the delete whose unlink failed and deletes the rest, reporting each change once in plan order', async () => {
    const client = account({ audiences: [1, 2, 3], failUnlink: true });
    const reported: string[] = [];
    const plan = planOf([unlinking(1, 101), deletion(1), deletion(2), deletion(3)]);
    const result = await applyPlan(
      plan,
      { audiences: client },
      { finished: (_change, result) => reported.push(`${result.action} ${result.id} ${result.status}`) },
    );
    expect(result.results.map((change) => `${change.action} ${change.id} ${change.status}`)).toEqual([
      'unlink 1 failed',
      'delete 1 skipped',
      'delete 2 ok',
      'delete 3 ok',
    ]);
    expect(result.results[1]?.cause).toContain('unlinking ad group 101 failed');
    expect([...reported].sort()).toEqual(
      [...result.results.map((change) => `${change.action} ${change.id} ${change.status}`)].sort(),
    );
    expect(client.calls).toEqual(['unlink 1 101', 'deleteMany 2,3']);
  });
});

describe('applyPlan: interrupted', () => {
  it('starts no change once interrupted: the ones in flight finish, the others end as not started', async () => {
    const client = account({ audiences: [1, 2, 3] });
    const interrupt = new AbortController();
    const plan = planOf([unlinking(1, 101), deletion(1), deletion(2), deletion(3)]);
    const reported: string[] = [];
    const progress = {
      finished: (_change: Change, result: ChangeResult) => {
        reported.push(`${result.action} ${result.id} ${result.status}`);
        interrupt.abort();
      },
    };
    const result = await applyPlan(plan, { audiences: client }, progress, interrupt.signal);
    expect(result.results.map((change) => `${change.action} ${change.id} ${change.status}`)).toEqual([
      'unlink 1 ok',
      'delete 1 skipped',
      'delete 2 skipped',
      'delete 3 skipped',
    ]);
    // Each has its progress line, the deletes of the kind that never began too.
    expect(reported).toEqual(['unlink 1 ok', 'delete 1 skipped', 'delete 2 skipped', 'delete 3 skipped']);
    expect(result.results.slice(1).map((change) => change.cause)).toEqual(
      Array(3).fill('not started: the apply was interrupted'),
    );
    expect(client.calls).toEqual(['unlink 1 101']);
  });
});

describe('applyPlan: a create another apply raced', () => {
  const made = {
    id: '8',
    name: 'race',
    audienceStatus: 'STANDBY',
    type: 'DISPLAY',
    createdDate: '',
    lastModifiedDate: '',
  };
  const create: AudienceCreate = {
    action: 'create',
    kind: 'audience',
    name: 'race',
    id: null,
    before: null,
    after: definition({ name: 'race' }),
  };

  function racedAccount(rival: { definition: ReturnType<typeof definition> }, remove: (id: Long) => Promise<void>) {
    const client = account({ audiences: [] });
    client.create = async () => ({
      id: made.id,
      audience: { ...made, populationScore: null, unmodelled: {}, definition: definition({ name: 'race' }) },
      verified: null,
      candidates: [],
    });
    client.list = async () => [{ ...made, id: '7' }, made];
    client.read = async (id) => ({ ...made, id, populationScore: null, unmodelled: {}, definition: rival.definition });
    client.delete = async (id) => {
      client.calls.push(`delete ${id}`);
      await remove(id);
      return { verified: null };
    };
    return client;
  }

  it('adopts the lower id when the rival holds the same definition, deleting its own', async () => {
    const client = racedAccount({ definition: definition({ name: 'race' }) }, async () => undefined);
    const [result] = (await applyPlan(planOf([create]), { audiences: client })).results;
    expect(result).toMatchObject({ status: 'ok', id: '7' });
    expect(result?.cause).toContain('adopted: another apply created "race" at the same time (id 7)');
    expect(client.calls).toEqual(['delete 8']);
  });

  it('tells its progress: the create started and finished, followed up while its race is settled, then finished again as adopted', async () => {
    const client = racedAccount({ definition: definition({ name: 'race' }) }, async () => undefined);
    const events: string[] = [];
    await applyPlan(
      planOf([create]),
      { audiences: client },
      {
        started: (change) => events.push(`started ${change.name}`),
        finished: (change, result) => events.push(`finished ${change.name} ${result.status} ${result.id}`),
        followingUp: (changes, underway) =>
          events.push(`${underway ? 'following up' : 'followed up'} ${changes.map((change) => change.name).join(',')}`),
      },
    );
    expect(events).toEqual([
      'started race',
      'finished race ok 8',
      'following up race',
      'finished race ok 7',
      'followed up race',
    ]);
  });

  it('keeps both, and says so, when the rival is another audience or its duplicate cannot be deleted: the create was made', async () => {
    const foreign = racedAccount({ definition: definition({ name: 'race', type: 'MESSAGE' }) }, async () => undefined);
    const [kept] = (await applyPlan(planOf([create]), { audiences: foreign })).results;
    expect(kept).toMatchObject({ status: 'ok', id: '8' });
    expect(kept?.cause).toContain('appeared meanwhile (id 7) with another definition: both are kept');
    expect(foreign.calls).toEqual([]);

    const stuck = racedAccount({ definition: definition({ name: 'race' }) }, () =>
      Promise.reject(new Error('the service went away')),
    );
    const [left] = (await applyPlan(planOf([create]), { audiences: stuck })).results;
    expect(left).toMatchObject({ status: 'ok', id: '8' });
    expect(left?.cause).toContain('deleting the duplicate this apply made (id 8) failed (the service went away)');
  });

  it('adopts the lowest alike and deletes its other candidates when a lost answer left it unsure which one it made, whoever made them', async () => {
    const client = racedAccount({ definition: definition({ name: 'race' }) }, async (id) => {
      if (id === '9')
        throw new ApiError({
          service: 'audience',
          kind: 'http',
          status: 404,
          attempts: 1,
          method: 'DELETE',
          path: '/openapi/v4/targetings/9',
          ambiguous: false,
        });
    });
    client.create = async () => ({
      id: '7',
      audience: { ...made, id: '7', populationScore: null, unmodelled: {}, definition: definition({ name: 'race' }) },
      verified: 'the answer was lost (503); …',
      candidates: ['7', '8', '9'],
    });
    client.list = async () => ['7', '8', '9'].map((id) => ({ ...made, id }));
    const [result] = (await applyPlan(planOf([create]), { audiences: client })).results;
    // 7 stays; 8 and 9 go (9's 404: another apply deleted it first).
    expect(result).toMatchObject({ status: 'ok', id: '7' });
    expect(result?.cause).toBe(
      'adopted: the account held 3 audiences named "race" made since the plan (ids 7, 8, 9), and which one this create made is unknown: the lowest id with its definition stays (id 7); the duplicates (ids 8, 9) were deleted',
    );
    expect(client.calls).toEqual(['delete 8', 'delete 9']);
  });

  it('unsure which one it made, leaves and names a candidate it cannot read or that holds another definition: the next plan will stop at the name', async () => {
    const client = racedAccount({ definition: definition({ name: 'race' }) }, async () => undefined);
    client.create = async () => ({
      id: '7',
      audience: null,
      verified: 'the answer was lost (503); …',
      candidates: ['7', '8', '9', '10'],
    });
    client.list = async () => ['7', '8', '9', '10'].map((id) => ({ ...made, id }));
    client.read = async (id) => {
      if (id === '9') throw new Error('the service answered 500');
      return {
        ...made,
        id,
        populationScore: null,
        unmodelled: {},
        definition: definition({ name: 'race', type: id === '7' ? 'MESSAGE' : 'DISPLAY' }),
      };
    };
    const [result] = (await applyPlan(planOf([create]), { audiences: client })).results;
    expect(result).toMatchObject({ status: 'ok', id: '8' });
    expect(result?.cause).toBe(
      'the account held 4 audiences named "race" made since the plan (ids 7, 8, 9, 10), and which one this create made is unknown: the lowest id with its definition stays (id 8); the duplicate (id 10) was deleted; but audience 9 could not be read (the service answered 500), so it was not deleted; audience 7 holds another definition, so it is kept: the next plan stops at DUPLICATE_LIVE_NAME until one of them is pinned in the file or the others are deleted',
    );
    expect(client.calls).toEqual(['delete 10']);
  });
});

describe('applyPlan: answers lost on the way', () => {
  const creating = (name: string): AudienceCreate => ({
    action: 'create',
    kind: 'audience',
    name,
    id: null,
    before: null,
    after: definition({ name }),
  });
  const unknown = (what: string) =>
    new AppError({
      code: OUTCOME_UNKNOWN,
      source: 'remote',
      summary: `the outcome is unknown: ${what} may have been carried out, but its answer was lost (503)`,
    });

  it('a create found after a lost answer is done and says how it is known; one that could not be settled is unknown, neither done nor failed', async () => {
    const client = account({ audiences: [] });
    client.list = async () => [];
    client.create = async (sent) => {
      if (sent.name === 'lost') throw unknown('the create of audience "lost"');
      const audience = {
        id: sent.name === 'found' ? '8' : '9',
        name: sent.name,
        audienceStatus: 'STANDBY' as const,
        type: 'DISPLAY' as const,
        createdDate: '',
        lastModifiedDate: '',
        populationScore: null,
        unmodelled: {},
        definition: sent,
      };
      return {
        id: audience.id,
        audience,
        verified:
          sent.name === 'found'
            ? 'the answer was lost (503); the account was listed and the audience was found (id 8)'
            : null,
        candidates: [],
      };
    };
    const reported: ChangeResult[] = [];
    const result = await applyPlan(
      planOf([creating('found'), creating('lost'), creating('plain')]),
      { audiences: client },
      { finished: (_change, result) => reported.push(result) },
    );
    expect(result.results).toEqual([
      {
        action: 'create',
        name: 'found',
        id: '8',
        status: 'ok',
        verified: 'the answer was lost (503); the account was listed and the audience was found (id 8)',
        differing: [],
      },
      {
        action: 'create',
        name: 'lost',
        id: null,
        status: 'unknown',
        cause:
          'the outcome is unknown: the create of audience "lost" may have been carried out, but its answer was lost (503)',
      },
      { action: 'create', name: 'plain', id: '9', status: 'ok', differing: [] },
    ]);
    expect(result.summary).toEqual({ ok: 1, verified: 1, failed: 0, unknown: 1, skipped: 0 });
    expect(reported).toHaveLength(3);
  });

  it('a batch delete says, per audience, whether the list after a lost answer found it gone, or it was sent again and deleted', async () => {
    const client = account({
      audiences: [1, 2, 3],
      deleteMany: () => ({
        deletedUnanswered: ['1', '3'],
        lostAnswer: 'the service answered 503',
        sent: ['2'],
        answer: { successCount: 1, failCount: 0, errorMessages: [] },
      }),
    });
    const result = await applyPlan(planOf([deletion(1), deletion(2), deletion(3)]), { audiences: client });
    expect(result.results.map(({ id, status, verified }) => ({ id, status, verified }))).toEqual([
      {
        id: '1',
        status: 'ok',
        verified:
          "the batch delete's answer was lost (the service answered 503); the account was listed and the audience was gone",
      },
      {
        id: '2',
        status: 'ok',
        verified:
          "the batch delete's answer was lost (the service answered 503); the account was listed and the audience was still there, so it was sent again and deleted",
      },
      {
        id: '3',
        status: 'ok',
        verified:
          "the batch delete's answer was lost (the service answered 503); the account was listed and the audience was gone",
      },
    ]);
    expect(result.summary).toEqual({ ok: 0, verified: 3, failed: 0, unknown: 0, skipped: 0 });
  });

  it('a batch delete whose lost answer could not be settled is unknown for what was left, and done for what was found gone', async () => {
    const client = account({
      audiences: [1, 2],
      deleteMany: () => ({
        deletedUnanswered: ['1'],
        lostAnswer: 'reset',
        sent: ['2'],
        answer: { error: unknown('the batch delete of audience 2') },
      }),
    });
    const result = await applyPlan(planOf([deletion(1), deletion(2)]), { audiences: client });
    expect(result.results.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: '1', status: 'ok' },
      { id: '2', status: 'unknown' },
    ]);
    expect(result.results[1]?.cause).toContain('the outcome is unknown: the batch delete of audience 2');
  });

  it('a batch whose failures are not all named, and whose account cannot be listed again, is failed where named and unknown elsewhere', async () => {
    const client = account({
      audiences: [1, 2, 3],
      deleteMany: (ids) =>
        answered(ids, { successCount: 1, failCount: 2, errorMessages: ['audience 1: in use', 'one more failed'] }),
    });
    client.list = () => Promise.reject(new Error('the service went away'));
    const result = await applyPlan(planOf([deletion(1), deletion(2), deletion(3)]), { audiences: client });
    expect(result.results.map((change) => change.status)).toEqual(['failed', 'unknown', 'unknown']);
    expect(result.results[0]?.cause).toBe('audience 1: in use');
    expect(result.results[1]?.cause).toContain('could not be read again to tell which: the service went away');
  });

  it('a create whose lost answer was found to have made nothing, and that an interrupt kept from being sent again, is not started, saying why', async () => {
    const client = account({ audiences: [] });
    client.create = async () => {
      throw new AppError({
        code: NOT_STARTED,
        source: 'user',
        summary: 'not sent again: the command was interrupted',
        detail: 'the answer was lost (the service answered 500); the account was listed and the audience was not there',
      });
    };
    const [result] = (await applyPlan(planOf([creating('later')]), { audiences: client })).results;
    expect(result).toEqual({
      action: 'create',
      name: 'later',
      id: null,
      status: 'skipped',
      cause:
        'not started: the apply was interrupted before it was sent again (the answer was lost (the service answered 500); the account was listed and the audience was not there)',
    });
  });

  it("an unlink whose outcome is unknown holds back its audience's delete", async () => {
    const client = account({ audiences: [1, 2] });
    client.unlink = async () => {
      throw unknown('the unlink of ad group 101 from audience 1');
    };
    const result = await applyPlan(planOf([unlinking(1, 101), deletion(1), deletion(2)]), { audiences: client });
    expect(result.results.map((change) => `${change.action} ${change.id} ${change.status}`)).toEqual([
      'unlink 1 unknown',
      'delete 1 skipped',
      'delete 2 ok',
    ]);
    expect(result.results[1]?.cause).toBe(
      'whether ad group 101 was unlinked is unknown, so the audience may still be in use',
    );
    expect(client.calls).toEqual(['delete 2']);
  });
});

describe('verifyApplied after the creates: the list that settles races also checks them', () => {
  const creating = (name: string): AudienceCreate => ({
    action: 'create',
    kind: 'audience',
    name,
    id: null,
    before: null,
    after: definition({ name }),
  });

  /** An account that makes each create (but `lose`, whose audience never shows), and counts its lists. */
  function creatingAccount(lose?: string) {
    const client = account({ audiences: [21] });
    const names = new Map<Long, string>([['21', 'audience 21']]);
    let lists = 0;
    client.list = async () => {
      lists += 1;
      return [...client.present].map((id) => ({
        id,
        name: names.get(id) ?? '',
        audienceStatus: 'AVAILABLE' as const,
        type: 'DISPLAY' as const,
        createdDate: '',
        lastModifiedDate: '',
      }));
    };
    client.create = async (sent) => {
      const id = String(30 + names.size);
      names.set(id, sent.name);
      if (sent.name !== lose) client.present.add(id);
      const audience = {
        id,
        name: sent.name,
        audienceStatus: 'STANDBY' as const,
        type: 'DISPLAY' as const,
        createdDate: '',
        lastModifiedDate: '',
        populationScore: null,
        unmodelled: {},
        definition: sent,
      };
      return { id, audience, verified: null, candidates: [] };
    };
    return { client, lists: () => lists };
  }

  it('lists the account once after the creates, and finds what is missing from that list', async () => {
    const { client, lists } = creatingAccount('gone');
    const plan = planOf([creating('made'), creating('gone')]);
    const listed: ListedAfterWrites = { ids: undefined };
    const result = await applyPlan(plan, { audiences: client, listed });
    expect(await verifyApplied(plan, result, client, listed)).toEqual(['audience "gone" is missing after its create']);
    expect(lists()).toBe(1);
  });

  it('lists again when a delete follows the creates', async () => {
    const { client, lists } = creatingAccount();
    const plan = planOf([creating('made'), deletion(21)]);
    const listed: ListedAfterWrites = { ids: undefined };
    const result = await applyPlan(plan, { audiences: client, listed });
    expect(await verifyApplied(plan, result, client, listed)).toEqual([]);
    expect(lists()).toBe(2);
    expect(client.present.has('21')).toBe(false);
  });
});

describe('applyPlan: what an update keeps as read', () => {
  it('reports a field it kept that the service no longer holds after the update as differing, never as done in silence', async () => {
    const client = account({ audiences: [4] });
    const before = definition({ name: 'kept' });
    let sentKeep: unknown;
    client.update = async (id, sent, keep) => {
      sentKeep = keep;
      return {
        audience: {
          id,
          name: sent.name,
          audienceStatus: 'STANDBY',
          type: 'DISPLAY',
          createdDate: '',
          lastModifiedDate: '',
          populationScore: null,
          definition: sent,
          unmodelled: { note: '"kept"' },
        },
        verified: null,
      };
    };
    const update: AudienceUpdate = {
      action: 'update',
      kind: 'audience',
      name: 'kept',
      id: '4',
      before,
      after: definition({ name: 'kept', genders: ['F'] }),
      kept: { note: '"kept"', frequencyCap: '{ "perDay": 3 }' },
      display: { fields: [], impact: [] },
    };
    const [result] = (await applyPlan(planOf([update]), { audiences: client })).results;
    expect(sentKeep).toEqual({ before, unmodelled: { note: '"kept"', frequencyCap: '{ "perDay": 3 }' } });
    expect(result).toMatchObject({ status: 'ok', differing: ['frequencyCap'] });
  });
});
