import { describe, expect, it } from 'vitest';
import type { AudienceClient } from '../api/audiences.js';
import { AppError, NOT_STARTED } from '../errors.js';
import type { AudienceDelete, Plan } from '../plan/index.js';
import { definition } from '../../test/helpers/builders.js';
import { applyAndVerify } from './apply.js';

describe('applyAndVerify', () => {
  it('an interrupt while the account is read back: the changes stand as done, the apply is interrupted, and the check says it was cut short', async () => {
    const interrupt = new AbortController();
    const present = new Set([7]);
    const refuse = () => Promise.reject(new Error('not expected here'));
    const audiences: AudienceClient = {
      adAccountId: 1234,
      list: async () => {
        // The interrupt comes as the check lists the account: the transport then sends nothing new.
        interrupt.abort();
        throw new AppError({ code: NOT_STARTED, source: 'user', summary: 'GET /openapi/v4/targetings/audiences was not sent: the command was interrupted' });
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
    const deletion: AudienceDelete = { action: 'delete', kind: 'audience', name: 'old', id: 7, before: definition({ name: 'old' }), after: null, display: { impact: [] } };
    const plan: Plan = {
      formatVersion: 1,
      adAccountId: 1234,
      changes: [deletion],
      warnings: [],
      errors: [],
      summary: { create: 0, update: 0, delete: 1, unlink: 0, generate: 0, remove: 0 },
      fingerprint: { desiredHash: 'hash', audiences: [], accountAudienceIds: null },
    };
    const applied = await applyAndVerify(plan, { audiences }, {}, interrupt.signal);
    expect(applied).toMatchObject({ interrupted: true, unverified: 'the check was interrupted', remaining: [] });
    expect(applied.result.summary).toMatchObject({ ok: 1, skipped: 0 });
    expect(present.size).toBe(0);
  });
});
