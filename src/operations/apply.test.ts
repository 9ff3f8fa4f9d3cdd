import { describe, expect, it } from 'vitest';
import type { AudienceClient } from '../api/audiences.js';
import { AppError, NOT_STARTED } from '../errors.js';
import type { AudienceCreate, AudienceDelete, ChangeResult } from '../plan/index.js';
import { definition, planOf } from '../../test/helpers/builders.js';
import { applyAndVerify, toldSoFar } from './apply.js';

describe('applyAndVerify', () => {
  it('an interrupt while the account is read back: the changes stand as done, the apply is interrupted, and the check says it was cut short', async () => {
    const interrupt = new AbortController();
    const present = new Set(['7']);
    const refuse = () => Promise.reject(new Error('not expected here'));
    const audiences: AudienceClient = {
      adAccountId: 1234,
      list: async () => {
        // The interrupt comes as the check lists the account: the transport then sends nothing new.
        interrupt.abort();
        throw new AppError({
          code: NOT_STARTED,
          source: 'user',
          summary: 'GET /openapi/v4/targetings/audiences was not sent: the command was interrupted',
        });
      },
      read: refuse,
      create: refuse,
      update: refuse,
      adGroups: refuse,
      unlink: refuse,
      deleteMany: refuse,
      delete: async (id) => {
        present.delete(id);
        return { verified: null };
      },
    };
    const deletion: AudienceDelete = {
      action: 'delete',
      kind: 'audience',
      name: 'old',
      id: '7',
      before: definition({ name: 'old' }),
      after: null,
      kept: {},
      display: { impact: [] },
    };
    const plan = planOf([deletion]);
    const applied = await applyAndVerify(plan, { audiences }, {}, interrupt.signal);
    expect(applied).toMatchObject({ interrupted: true, unverified: 'the check was interrupted', remaining: [] });
    expect(applied.result.summary).toMatchObject({ ok: 1, skipped: 0 });
    expect(present.size).toBe(0);
  });
});

describe('an apply stopped at once says what is known', () => {
  const creating = (name: string): AudienceCreate => ({
    action: 'create',
    kind: 'audience',
    name,
    id: null,
    before: null,
    after: definition({ name }),
  });

  it('done as finished, in flight as unknown, never started as skipped, and a create shown ok whose race was being settled as done: it may have left a duplicate', () => {
    const shown: ChangeResult[] = [];
    const told = toldSoFar({ progress: (result) => shown.push(result) });
    const [done, settling, inFlight, waiting] = ['done', 'settling', 'in-flight', 'waiting'].map(creating) as [
      AudienceCreate,
      AudienceCreate,
      AudienceCreate,
      AudienceCreate,
    ];
    const progress = told.progressOf(undefined);
    for (const change of [done, settling, inFlight]) progress.started(change);
    progress.finished(done, { action: 'create', name: 'done', id: '1', status: 'ok' });
    progress.finished(settling, { action: 'create', name: 'settling', id: '2', status: 'ok' });
    progress.followingUp([done, settling], true);
    progress.followingUp([done], false);
    const account = told.stoppedAtOnce(planOf([done, settling, inFlight, waiting]));
    expect(account.result.results.map((result) => `${result.name} ${result.status}: ${result.cause ?? ''}`)).toEqual([
      'done ok: ',
      'settling ok: the apply was stopped at once while it checked for a duplicate made by another apply at the same time: if the next plan stops at DUPLICATE_LIVE_NAME, keep the lowest id and delete the other',
      'in-flight unknown: in flight when the apply was stopped at once: it may or may not have been made',
      'waiting skipped: not started: the apply was interrupted',
    ]);
    expect(account).toMatchObject({ interrupted: true, result: { summary: { ok: 2, unknown: 1, skipped: 1 } } });
    expect(shown.map((result) => result.name)).toEqual(['done', 'settling']);
  });
});
