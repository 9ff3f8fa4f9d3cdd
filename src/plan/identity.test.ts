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
