import { describe, expect, it } from 'vitest';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../../test/helpers/builders.js';
import { matchIdentities } from './identity.js';
import { planAccount } from './planner.js';
import type { AudienceUpdate, Plan } from './types.js';

const options = { allowMassDelete: false };
const actions = (plan: Plan) => plan.changes.map((change) => [change.action, change.name, change.id]);
const codes = (problems: Plan['errors']) => problems.map((problem) => [problem.code, problem.name]);

describe('renamedFrom', () => {
  it('updates the name of the audience the old name is, in place: no unlink, no delete, not counted by the mass-delete guard', () => {
    const live = liveState([liveAudience(5, { name: 'old' }), liveAudience(6, { name: 'kept' })], {
      5: [adGroupLink(801)],
    });
    const desired = desiredState(
      [desiredAudience({ name: 'new' }, { renamedFrom: ['old'] }), desiredAudience({ name: 'kept' })],
      { prune: true, massDelete: { minManaged: 0, ratio: 0 } },
    );
    const plan = planAccount(desired, live, options);
    expect(actions(plan)).toEqual([['update', 'new', '5']]);
    expect((plan.changes[0] as AudienceUpdate).display).toMatchObject({
      fields: [{ field: 'name', before: 'old', after: 'new' }],
      impact: [{ adGroupId: '801' }],
    });
    expect(plan.errors).toEqual([]);
    expect(plan.warnings).toEqual([]);
  });

  it('changes nothing once the rename is applied, and says it can go', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { renamedFrom: ['old'] })]),
      liveState([liveAudience(5, { name: 'new' })]),
      options,
    );
    expect(plan.changes).toEqual([]);
    expect(plan.warnings).toMatchObject([
      { code: 'RENAMED_FROM_UNUSED', name: 'new', hint: expect.stringContaining('can go') },
    ]);
  });

  it('says so when the account has none of the old names, and creates the audience', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { renamedFrom: ['olde'] })]),
      liveState([liveAudience(5, { name: 'old' })]),
      options,
    );
    expect(actions(plan)).toEqual([['create', 'new', null]]);
    expect(plan.warnings).toMatchObject([
      { code: 'RENAMED_FROM_UNUSED', message: expect.stringContaining('does not have') },
    ]);
  });

  it('follows a rename of a rename: whichever old name the account still has', () => {
    for (const current of ['first', 'second']) {
      const plan = planAccount(
        desiredState([desiredAudience({ name: 'third' }, { renamedFrom: ['first', 'second'] })]),
        liveState([liveAudience(5, { name: current })]),
        options,
      );
      expect((plan.changes[0] as AudienceUpdate).display.fields).toEqual([
        { field: 'name', before: current, after: 'third' },
      ]);
    }
  });

  it('matches an old name the account spells otherwise (equal after NFC)', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { renamedFrom: ['caf\u00e9'] })]),
      liveState([liveAudience(5, { name: 'cafe\u0301' })]),
      options,
    );
    expect(actions(plan)).toEqual([['update', 'new', '5']]);
  });

  it('refuses to guess when the old and the new name are both live, several audiences have the old names, or another entry pins it', () => {
    const both = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { renamedFrom: ['old'] })], { prune: true }),
      liveState([liveAudience(5, { name: 'old' }), liveAudience(6, { name: 'new' })]),
      options,
    );
    expect(codes(both.errors)).toEqual([['RENAME_AMBIGUOUS', 'new']]);
    expect(both.errors[0]?.message).toBe(
      'audience "new" is renamed from "old", but the ad account has both: "new" (id 6), "old" (id 5)',
    );
    expect(both.changes).toEqual([]);

    const several = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { renamedFrom: ['a', 'b'] })], { prune: true }),
      liveState([liveAudience(5, { name: 'a' }), liveAudience(7, { name: 'b' })]),
      options,
    );
    expect(several.errors[0]?.message).toBe(
      'audience "new" is renamed from "a" or "b", which 2 audiences of the ad account are named (ids 5, 7)',
    );
    expect(several.changes).toEqual([]);

    const pinned = planAccount(
      desiredState([
        desiredAudience({ name: 'new' }, { renamedFrom: ['old'] }),
        desiredAudience({ name: 'other' }, { id: '5' }),
      ]),
      liveState([liveAudience(5, { name: 'old' })]),
      options,
    );
    expect(pinned.errors).toMatchObject([
      {
        code: 'RENAME_AMBIGUOUS',
        message: 'audience "new" is renamed from "old", which is audience 5, pinned by "other"',
      },
    ]);
  });

  it('leaves identity to a pinned id: renamedFrom agrees while the rename is pending, and can go after it', () => {
    const pending = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { id: '5', renamedFrom: ['old'] })]),
      liveState([liveAudience(5, { name: 'old' }), liveAudience(6, { name: 'x' })]),
      options,
    );
    expect(actions(pending)).toEqual([['update', 'new', '5']]);
    expect(pending.warnings).toEqual([]);
    const done = planAccount(
      desiredState([desiredAudience({ name: 'new' }, { id: '5', renamedFrom: ['old'] })]),
      liveState([liveAudience(5, { name: 'new' })]),
      options,
    );
    expect(codes(done.warnings)).toEqual([['RENAMED_FROM_UNUSED', 'new']]);
  });
});

describe('LOOKS_LIKE_RENAME', () => {
  it('warns of a delete and a create of the same definition, naming both and the line to add', () => {
    const live = liveState(
      [liveAudience(5, { name: 'old', ages: ['20'] }), liveAudience(6, { name: 'other', ages: ['30'] })],
      { 5: [adGroupLink(801)] },
    );
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'new', ages: ['20'] })], { prune: true }),
      live,
      options,
    );
    expect(plan.warnings).toEqual([
      {
        code: 'LOOKS_LIKE_RENAME',
        name: 'new',
        message:
          'audience "new" is created with the definition of "old" (id 5, used by ad group 801), which the plan deletes: if it is a rename, the audience loses its id and its ad groups',
        hint: 'to rename it in place (same id, ad groups kept), add `renamedFrom: "old"` to the entry of "new"',
      },
    ]);
  });

  it('says nothing of a delete and a create that differ, or of names that print alike', () => {
    const differ = planAccount(
      desiredState([desiredAudience({ name: 'new', ages: ['25'] })], { prune: true }),
      liveState([liveAudience(5, { name: 'old', ages: ['20'] })]),
      options,
    );
    expect(differ.warnings).toEqual([]);
    const alike = planAccount(
      desiredState([desiredAudience({ name: 'caf\u00e9' })], { prune: true }),
      liveState([liveAudience(5, { name: 'cafe\u0301' }), liveAudience(6, { name: 'caf\u00e9\u200b' })]),
      options,
    );
    expect(alike.warnings.map((warning) => warning.code)).not.toContain('LOOKS_LIKE_RENAME');
  });
});

describe('the protect globs', () => {
  it('refuse a plan that deletes a live audience they name, naming the glob, and plan no unlink of it', () => {
    const live = liveState([liveAudience(5, { name: 'brand-core' }), liveAudience(6, { name: 'stale' })], {
      5: [adGroupLink(801)],
    });
    const plan = planAccount(desiredState([], { prune: true, protect: ['brand-*'] }), live, options);
    expect(plan.errors).toMatchObject([
      {
        code: 'PROTECTED',
        name: 'brand-core',
        message: expect.stringContaining('protected by the protect glob "brand-*"'),
      },
    ]);
    expect(actions(plan)).toEqual([['delete', 'stale', '6']]);
  });

  it('refuse an unlink from a declared audience they name', () => {
    const live = liveState([liveAudience(5, { name: 'brand-core' })], { 5: [adGroupLink(801), adGroupLink(802)] });
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'brand-core' }, { adGroups: ['801'] })], { protect: ['brand-*'] }),
      live,
      options,
    );
    expect(plan.errors).toMatchObject([
      {
        code: 'PROTECTED',
        message:
          'audience "brand-core" (id 5) is protected by the protect glob "brand-*", but ad group 802 would be unlinked from it',
      },
    ]);
    expect(plan.changes).toEqual([]);
  });

  it('match a name in another Unicode spelling, and leave updates alone', () => {
    const live = liveState([liveAudience(5, { name: 'cafe\u0301-x' })]);
    expect(
      codes(planAccount(desiredState([], { prune: true, protect: ['caf\u00e9-*'] }), live, options).errors),
    ).toEqual([['PROTECTED', 'cafe\u0301-x']]);
    const update = planAccount(
      desiredState([desiredAudience({ name: 'cafe\u0301-x', ages: ['20'] })], { protect: ['caf\u00e9-*'] }),
      live,
      options,
    );
    expect(update.errors).toEqual([]);
    expect(update.summary.update).toBe(1);
  });
});

describe('a pinned id the account no longer has', () => {
  it('is drift: the audience is created again with a warning, and the rest of the account is planned as usual', () => {
    const live = liveState([liveAudience(6, { name: 'stale', ages: ['60'] }), liveAudience(7, { name: 'kept' })]);
    const plan = planAccount(
      desiredState(
        [desiredAudience({ name: 'vanished' }, { id: '289' }), desiredAudience({ name: 'kept', ages: ['20'] })],
        { prune: true },
      ),
      live,
      options,
    );
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
        message:
          'audience "vanished" pins id 289, which the ad account 1234 no longer has: it was deleted outside the tool, so the plan creates it again (under a new id)',
      },
    ]);
  });

  it('is the live audience of its name when there is one (the one it was created again as), with the id to write', () => {
    const plan = planAccount(
      desiredState([desiredAudience({ name: 'vanished' }, { id: '289' })], { prune: true }),
      liveState([liveAudience(301, { name: 'vanished' })]),
      options,
    );
    expect(plan.changes).toEqual([]);
    expect(plan.warnings).toMatchObject([
      {
        code: 'PINNED_ID_DELETED',
        message: expect.stringContaining('"vanished" (id 301) is taken as it'),
        hint: 'write `id: 301` in place of `id: 289` (or remove the `id:` line)',
      },
    ]);
  });

  it('never takes an audience another entry pins, and is created instead', () => {
    const plan = planAccount(
      desiredState([
        desiredAudience({ name: 'spring' }, { id: '289' }),
        desiredAudience({ name: 'spring-2025' }, { id: '5' }),
      ]),
      liveState([liveAudience(5, { name: 'spring' })]),
      options,
    );
    expect(actions(plan)).toEqual([
      ['create', 'spring', null],
      ['update', 'spring-2025', '5'],
    ]);
  });
});

describe('matchIdentities', () => {
  it('answers the same desired state and live list again from the first match, and matches anew against another list', () => {
    const desired = desiredState([desiredAudience({ name: 'a' }), desiredAudience({ name: 'b' })]);
    const live = liveState([liveAudience(5, { name: 'a' })]).audiences;
    const first = matchIdentities(desired, live);
    expect(matchIdentities(desired, live)).toBe(first);
    const other = matchIdentities(desired, [...live, liveAudience(6, { name: 'b' })]);
    expect(other).not.toBe(first);
    expect(other.matched.map((pair) => pair.live.id)).toEqual(['5', '6']);
    expect(first.missing.map((audience) => audience.key)).toEqual(['b']);
  });
});
