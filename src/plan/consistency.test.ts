import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { inconsistencies } from './consistency.js';
import type { AdGroupUnlink, AudienceCreate, AudienceDelete, AudienceUpdate, Plan } from './types.js';

/** The golden plan with a create, an update, a delete and two unlinks, fresh for each edit. */
async function mixed(): Promise<Plan> {
  const saved = JSON.parse(await readFile(new URL('../../test/golden/mixed/plan.json', import.meta.url), 'utf8')) as
    Plan | Plan[];
  return Array.isArray(saved) ? saved[0]! : saved;
}

function find<T extends Plan['changes'][number]>(plan: Plan, action: T['action']): T {
  return plan.changes.find((change) => change.action === action) as T;
}

describe('inconsistencies', () => {
  it('finds none in a plan as the planner made it', async () => {
    expect(inconsistencies(await mixed())).toEqual([]);
  });

  it('finds a name shown that is not the one written, created or deleted', async () => {
    const plan = await mixed();
    find<AudienceCreate>(plan, 'create').name = 'other';
    find<AudienceUpdate>(plan, 'update').after.name = 'seoul-everyone';
    find<AudienceDelete>(plan, 'delete').name = 'kept-promo';
    expect(inconsistencies(plan)).toEqual([
      'the create of audience "other": its name is not the one it creates ("new-parents")',
      'the update of audience "seoul-women" (id 291): its name is not the one it writes ("seoul-everyone")',
      'the update of audience "seoul-women" (id 291): the fields it shows (ages, locations) are not what it changes (name, ages, locations)',
      'the delete of audience "kept-promo" (id 292): its name is not the one it deletes ("stale-promo")',
    ]);
  });

  it('finds an update whose fields shown are not what it writes', async () => {
    const plan = await mixed();
    find<AudienceUpdate>(plan, 'update').after.genders = ['M'];
    expect(inconsistencies(plan)).toEqual([
      'the update of audience "seoul-women" (id 291): the fields it shows (ages, locations) are not what it changes (ages, genders, locations)',
    ]);
  });

  it('says what differs when an update shows the fields it changes with other values (the names alone are the same)', async () => {
    const plan = await mixed();
    find<AudienceUpdate>(plan, 'update').after.ages = ['20', '25', '35'];
    expect(inconsistencies(plan)).toEqual([
      'the update of audience "seoul-women" (id 291): the change of ages it shows (after ["20","25","30"], added ["30"]) is not the one it makes (after ["20","25","35"], added ["35"])',
    ]);
    const other = await mixed();
    const [, locations] = find<AudienceUpdate>(other, 'update').display.fields;
    locations!.removed = [{ value: 'B' }];
    expect(inconsistencies(other)).toEqual([
      'the update of audience "seoul-women" (id 291): the change of locations it shows (removed [{"value":"B"}]) is not the one it makes (removed [])',
    ]);
  });

  it('finds a change of an audience the plan did not read, and an unlink of another ad group than it shows', async () => {
    const plan = await mixed();
    find<AudienceDelete>(plan, 'delete').id = '-1';
    find<AdGroupUnlink>(plan, 'unlink').adGroupId = '999';
    expect(inconsistencies(plan)).toEqual([
      expect.stringMatching(
        /^the unlink of ad group 999 from audience "seoul-women" \(id 291\): it shows ad group \d+$/,
      ),
      'the delete of audience "stale-promo" (id -1): the plan did not read audience -1',
    ]);
  });

  it('finds a field kept as read that the plan models itself, or that is no JSON text', async () => {
    const plan = await mixed();
    find<AudienceUpdate>(plan, 'update').kept = { ufoInterests: '["FOOD"]', frequencyCap: '{"perDay":3}' };
    find<AudienceDelete>(plan, 'delete').kept = { note: 'not json' };
    expect(inconsistencies(plan)).toEqual([
      'the update of audience "seoul-women" (id 291): it keeps ufoInterests as read, a field the plan shows and sends itself',
      'the delete of audience "stale-promo" (id 292): what it keeps of note is not JSON text',
    ]);
  });

  it('finds a removal that deletes a file its lock entry does not record', async () => {
    const plan = await mixed();
    const outputs = [{ path: 'assets/old.webp', sha256: 'a'.repeat(64) }];
    const before = {
      request: { operation: 't2i' as const, params: { image_format: 'webp' as const, samples: 1 }, inputs: {} },
      requestHash: 'h',
      seeds: [1],
      modelVersion: 'v2.0',
      outputs,
    };
    plan.changes.push({
      action: 'remove',
      kind: 'image',
      name: 'old',
      id: null,
      before,
      after: null,
      deletes: ['assets/old.webp', 'CODEOWNERS'],
    });
    plan.summary.remove = 1;
    expect(inconsistencies(plan)).toEqual([
      'the remove of image "old": it deletes "CODEOWNERS", which its lock entry does not record',
    ]);
  });

  it('finds a move that copies or deletes other files than its lock entry moves', async () => {
    const plan = await mixed();
    const outputs = [{ path: 'assets/old.webp', sha256: 'a'.repeat(64) }];
    const before = {
      request: { operation: 't2i' as const, params: { image_format: 'webp' as const, samples: 1 }, inputs: {} },
      requestHash: 'h',
      seeds: [1],
      modelVersion: 'v2.0',
      outputs,
    };
    const copies = [{ from: 'CODEOWNERS', to: 'art/old.webp' }];
    plan.changes.push({
      action: 'move',
      kind: 'image',
      name: 'old',
      id: null,
      before,
      after: { outputs: ['art/old.webp'] },
      copies,
      deletes: ['assets/old.webp', 'art/old.webp'],
    });
    plan.summary.move = 1;
    expect(inconsistencies(plan)).toEqual([
      'the move of image "old": it copies "CODEOWNERS" to "art/old.webp", which its lock entry does not move there',
      'the move of image "old": it deletes "art/old.webp", which is not an old file of its lock entry',
    ]);
  });

  it('finds a summary that does not count the changes', async () => {
    const plan = await mixed();
    plan.summary.create = 5;
    expect(inconsistencies(plan)).toEqual([
      'its summary ({"create":5,"update":1,"delete":1,"unlink":2,"generate":0,"remove":0}) does not count its changes ({"create":1,"update":1,"delete":1,"unlink":2,"generate":0,"remove":0})',
    ]);
  });
});
