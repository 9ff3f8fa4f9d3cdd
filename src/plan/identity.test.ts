import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { planAccount } from './planner.js';
import type { Plan } from './types.js';

const options = { allowMassDelete: false };
const actions = (plan: Plan) => plan.changes.map((change) => [change.action, change.name, change.id]);
const codes = (problems: Plan['errors']) => problems.map((problem) => [problem.code, problem.name]);

describe('the protect globs', () => {
  it('refuse a plan that deletes a live audience they name, naming the glob, and plan no unlink of it', () => {
    const live = liveState([liveAudience(5, { name: 'brand-core' }), liveAudience(6, { name: 'stale' })], { 5: [adGroupLink(801)] });
    const plan = planAccount(desiredState([], { prune: true, protect: ['brand-*'] }), live, options);
    expect(plan.errors).toMatchObject([{ code: 'PROTECTED', name: 'brand-core', message: expect.stringContaining('protected by the protect glob "brand-*"') }]);
    expect(actions(plan)).toEqual([['delete', 'stale', '6']]);
  });

  it('refuse an unlink from a declared audience they name', () => {
    const live = liveState([liveAudience(5, { name: 'brand-core' })], { 5: [adGroupLink(801), adGroupLink(802)] });
    const plan = planAccount(desiredState([desiredAudience({ name: 'brand-core' }, { adGroups: ['801'] })], { protect: ['brand-*'] }), live, options);
    expect(plan.errors).toMatchObject([{ code: 'PROTECTED', message: 'audience "brand-core" (id 5) is protected by the protect glob "brand-*", but ad group 802 would be unlinked from it' }]);
    expect(plan.changes).toEqual([]);
  });

  it('match a name in another Unicode spelling, and leave updates alone', () => {
    const live = liveState([liveAudience(5, { name: 'cafe\u0301-x' })]);
    expect(codes(planAccount(desiredState([], { prune: true, protect: ['caf\u00e9-*'] }), live, options).errors)).toEqual([['PROTECTED', 'cafe\u0301-x']]);
    const update = planAccount(desiredState([desiredAudience({ name: 'cafe\u0301-x', ages: ['20'] })], { protect: ['caf\u00e9-*'] }), live, options);
    expect(update.errors).toEqual([]);
    expect(update.summary.update).toBe(1);
  });
});

describe('a pinned id the account no longer has', () => {
  it('is drift: the audience is created again with a warning, and the rest of the account is planned as usual', () => {
    const live = liveState([liveAudience(6, { name: 'stale', ages: ['60'] }), liveAudience(7, { name: 'kept' })]);
    const plan = planAccount(desiredState([desiredAudience({ name: 'vanished' }, { id: '289' }), desiredAudience({ name: 'kept', ages: ['20'] })], { prune: true }), live, options);
    expect(plan.errors).toEqual([]);
    expect(actions(plan)).toEqual([
      ['update', 'kept', '7'],
      ['delete', 'stale', '6'],
      ['create', 'vanished', null],
    ]);
    expect(plan.warnings).toMatchObject([
      {
        code: 'PINNED_ID_DELETED',
        name: 'vanished',
        message: 'audience "vanished" pins id 289, which the ad account 1234 no longer has: it was deleted outside the tool, so the plan creates it again (under a new id)',
      },
    ]);
  });

  it('is the live audience of its name when there is one (the one it was created again as), with the id to write', () => {
    const plan = planAccount(desiredState([desiredAudience({ name: 'vanished' }, { id: '289' })], { prune: true }), liveState([liveAudience(301, { name: 'vanished' })]), options);
    expect(plan.changes).toEqual([]);
    expect(plan.warnings).toMatchObject([
      { code: 'PINNED_ID_DELETED', message: expect.stringContaining('"vanished" (id 301) is taken as it'), hint: 'write `id: 301` in place of `id: 289` (or remove the `id:` line)' },
    ]);
  });

  it('never takes an audience another entry pins, and is created instead', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'spring' }, { id: '289' }), desiredAudience({ name: 'spring-2025' }, { id: '5' })]),
      liveState([liveAudience(5, { name: 'spring' })]),
      options,
    );
    expect(actions(plan)).toEqual([
      ['create', 'spring', null],
      ['update', 'spring-2025', '5'],
    ]);
  });
});
