import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFINITION_FIELDS,
  REGION_FIELDS,
  stableStringify,
  TARGETING_FIELDS,
  TARGETING_MEMBER_KEYS,
  type AudienceDefinition,
  type JsonValue,
} from '../../src/model/index.js';
import { inconsistencies, planAccount, type Change } from '../../src/plan/index.js';
import { audienceDefinition, audienceDefinitions, audienceName, shuffled } from '../helpers/arbitraries.js';
import { changeNames, scopeKindOf, scopeTest } from '../../src/plan/scope.js';
import { adGroupLink, desiredAudience, desiredState, liveAudience, liveState } from '../helpers/builders.js';
import { planSchemaValidator } from '../helpers/plan-schema.js';

const options = { allowMassDelete: true };
const RUNS = { numRuns: 200 };

/** A desired state that declares each definition whole. */
function declare(definitions: AudienceDefinition[]) {
  return desiredState(definitions.map((full) => desiredAudience(full)));
}

/**
 * The same definition as the service may answer it: region names of its own, a display name
 * added to each member, and member ids in the other spelling (the spec does not show their type).
 */
function asAnswered(full: AudienceDefinition): fc.Arbitrary<AudienceDefinition> {
  const respell = (value: JsonValue): JsonValue =>
    typeof value === 'number'
      ? String(value)
      : typeof value === 'string' && /^\d+$/.test(value)
        ? Number(value)
        : value;
  return fc
    .record({ respellIds: fc.boolean(), regionName: fc.string({ maxLength: 8 }) })
    .map(({ respellIds, regionName }) => {
      const copy: Record<string, unknown> = { ...full };
      for (const field of REGION_FIELDS)
        copy[field] = full[field].map((region) => ({ ...region, description: regionName, depth1Name: regionName }));
      for (const field of TARGETING_FIELDS) {
        copy[field] = full[field].map((member) => ({
          ...Object.fromEntries(
            Object.entries(member).map(([key, value]) => [
              key,
              respellIds && key.endsWith('Id') ? respell(value) : value,
            ]),
          ),
          displayName: `name of ${String(member[TARGETING_MEMBER_KEYS[field][0] ?? ''])}`,
        }));
      }
      return copy as unknown as AudienceDefinition;
    });
}

/** A change as planned without a base. */
function withoutDrift(change: Change): Change {
  return Object.fromEntries(Object.entries(change).filter(([key]) => key !== 'drift')) as Change;
}

describe('planner properties', () => {
  it('planning a state against itself is empty, whatever names and id spellings the service answers with', () => {
    const scenario = audienceDefinitions(6).chain((definitions) =>
      fc.tuple(fc.constant(definitions), fc.tuple(...definitions.map(asAnswered))),
    );
    fc.assert(
      fc.property(scenario, ([definitions, answered]) => {
        const live = liveState(answered.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount(declare(definitions), live, options);
        expect(plan.changes).toEqual([]);
        expect(plan.errors).toEqual([]);
      }),
      RUNS,
    );
  });

  it('every field counts: a definition that differs from the live one in any field plans an update of that field', () => {
    const scenario = fc.tuple(audienceDefinition(fc.constant('a')), audienceDefinition(fc.constant('a')));
    fc.assert(
      fc.property(scenario, ([wanted, existing]) => {
        const plan = planAccount(declare([wanted]), liveState([liveAudience(1, existing)]), options);
        const differing = DEFINITION_FIELDS.filter(
          (field) => stableStringify(wanted[field] as JsonValue) !== stableStringify(existing[field] as JsonValue),
        );
        const update = plan.changes.find((change) => change.action === 'update');
        expect(update?.action === 'update' ? update.display.fields.map((change) => change.field) : []).toEqual(
          differing,
        );
      }),
      RUNS,
    );
  });

  it('drift: a file that is its own base marks every change of the account, a base that is the account marks none, and neither changes what is planned', () => {
    fc.assert(
      fc.property(audienceDefinitions(5), audienceDefinitions(5), fc.boolean(), (wanted, existing, prune) => {
        const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
        const desired = { ...declare(wanted), prune };
        const plain = planAccount(desired, live, options);
        const itself = planAccount(desired, live, { ...options, base: { ref: 'main', desired } });
        expect(itself.changes.map((change) => 'drift' in change && change.drift)).toEqual(
          plain.changes.map(() => true),
        );
        const account = planAccount(desired, live, {
          ...options,
          base: { ref: 'main', desired: { ...declare(existing), prune } },
        });
        expect(account).toEqual(plain);
        expect(itself.changes.map(withoutDrift)).toEqual(plain.changes);
      }),
      RUNS,
    );
  });

  it('a plan survives a JSON round trip', () => {
    fc.assert(
      fc.property(audienceDefinitions(5), audienceDefinitions(5), fc.boolean(), (wanted, existing, prune) => {
        const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount({ ...declare(wanted), prune }, live, options);
        expect(JSON.parse(JSON.stringify(plan))).toStrictEqual(plan);
      }),
      RUNS,
    );
  });

  it('the plan does not depend on the order of any set, nor of the audiences', () => {
    const scenario = fc.tuple(audienceDefinitions(4), audienceDefinition(audienceName)).chain(([definitions, other]) =>
      fc.record({
        definitions: fc.constant(definitions),
        live: fc.constant(definitions.map((full, index) => (index === 0 ? { ...other, name: full.name } : full))),
        reordered: fc.tuple(...definitions.map(reorderSets)).chain((items) => shuffled(items)),
      }),
    );
    fc.assert(
      fc.property(scenario, ({ definitions, live, reordered }) => {
        const state = liveState(live.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount(declare(definitions), state, options);
        const again = planAccount(declare(reordered), state, options);
        expect(again.changes).toEqual(plan.changes);
      }),
      RUNS,
    );
  });

  it('applying a plan’s updates gives a state that plans to no changes', () => {
    fc.assert(
      fc.property(
        audienceDefinitions(5).chain((wanted) =>
          fc.tuple(fc.constant(wanted), fc.tuple(...wanted.map((full) => audienceDefinition(fc.constant(full.name))))),
        ),
        ([wanted, existing]) => {
          const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
          const plan = planAccount(declare(wanted), live, options);
          const after = existing.map((full, index) => {
            const update = plan.changes.find((change) => change.action === 'update' && change.id === String(index + 1));
            return liveAudience(index + 1, update?.action === 'update' ? update.after : full);
          });
          expect(planAccount(declare(wanted), liveState(after), options).changes).toEqual([]);
        },
      ),
      RUNS,
    );
  });
});

/**
 * Names that print alike, each spelt several ways: composed (NFC), decomposed (NFD), and Å also as the angstrom sign.
 */
const SPELLINGS = [
  ['caf\u00e9', 'cafe\u0301'],
  ['na\u00efve', 'nai\u0308ve'],
  ['\u00c5', 'A\u030a', '\u212b'],
  ['plain'],
];
const spelling = fc.constantFrom(...SPELLINGS.flat());
const codePoints = (name: string) =>
  Array.from(name, (char) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

describe('names that print alike but are spelt otherwise', () => {
  it('are one audience when one declared name and one live audience share the look; never a delete and a create without a warning showing both', () => {
    const scenario = fc.record({
      declared: fc.uniqueArray(spelling, { maxLength: 5 }),
      live: fc.array(spelling, { maxLength: 5 }),
      prune: fc.boolean(),
    });
    fc.assert(
      fc.property(scenario, ({ declared, live, prune }) => {
        const state = liveState(live.map((name, index) => liveAudience(index + 1, { name })));
        const plan = planAccount(
          desiredState(
            declared.map((name) => desiredAudience({ name })),
            { prune },
          ),
          state,
          options,
        );
        const warnings = plan.warnings
          .filter((warning) => warning.code === 'NAME_SPELLING')
          .map((warning) => warning.message);
        const look = (name: string) => name.normalize('NFC');
        for (const created of plan.changes.filter((change) => change.action === 'create')) {
          for (const deleted of plan.changes.filter(
            (change) => change.action === 'delete' && look(change.name) === look(created.name),
          )) {
            expect(
              warnings.some(
                (message) => message.includes(codePoints(created.name)) && message.includes(codePoints(deleted.name)),
              ),
            ).toBe(true);
          }
        }
        for (const name of declared) {
          const alike = live.flatMap((other, index) => (look(other) === look(name) ? [index + 1] : []));
          const declaredAlike = declared.filter((other) => look(other) === look(name));
          if (alike.length !== 1 || declaredAlike.length !== 1 || live[(alike[0] ?? 0) - 1] === name) continue;
          expect(plan.changes.filter((change) => look(change.name) === look(name))).toEqual([
            expect.objectContaining({ action: 'update', id: String(alike[0]), name }),
          ]);
          expect(
            warnings.some(
              (message) =>
                message.includes(codePoints(name)) && message.includes(codePoints(live[(alike[0] ?? 0) - 1] ?? '')),
            ),
          ).toBe(true);
        }
      }),
      RUNS,
    );
  });
});

/** The same definition with every set in a random order. */
function reorderSets(full: AudienceDefinition): fc.Arbitrary<AudienceDefinition> {
  const sets = ['ages', 'genders', 'ufoInterests', 'ufoBusinessTypes', ...REGION_FIELDS, ...TARGETING_FIELDS] as const;
  return fc.tuple(...sets.map((field) => shuffled([...(full[field] as unknown[])]))).map((orders) => {
    const copy: Record<string, unknown> = { ...full };
    sets.forEach((field, index) => (copy[field] = orders[index]));
    return copy as unknown as AudienceDefinition;
  });
}

describe('the plan format', () => {
  it('every plan is described by schemas/plan.schema.json', async () => {
    const validate = await planSchemaValidator();
    fc.assert(
      fc.property(audienceDefinitions(5), audienceDefinitions(5), fc.boolean(), (wanted, existing, prune) => {
        const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount({ ...declare(wanted), prune, ignore: ['x*'] }, live, { allowMassDelete: false });
        expect(validate(plan) ? [] : validate.errors).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('every plan, saved and read back, bears out what it says of itself (what applying a saved plan checks)', () => {
    fc.assert(
      fc.property(audienceDefinitions(5), audienceDefinitions(5), fc.boolean(), (wanted, existing, prune) => {
        const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount({ ...declare(wanted), prune }, live, options);
        expect(inconsistencies(JSON.parse(JSON.stringify(plan)) as typeof plan)).toEqual([]);
      }),
      RUNS,
    );
  });
});

describe('scoped plans', () => {
  const GLOBS = ['a*', 'b*', '*-*', '?*1*', 'c?'];
  /** Declared audiences (some with `adGroups: [1]`), live ones (some of the same names), their links, and a scope. */
  const scenario = audienceDefinitions(5).chain((wanted) =>
    fc.record({
      wanted: fc.constant(wanted),
      declaresAdGroups: fc.array(fc.boolean(), { minLength: wanted.length, maxLength: wanted.length }),
      existing: fc.tuple(
        audienceDefinitions(4),
        fc
          .subarray(wanted)
          .chain((same) => fc.tuple(...same.map((full) => audienceDefinition(fc.constant(full.name))))),
      ),
      prune: fc.boolean(),
      scope: fc.record({
        targets: fc.subarray(GLOBS),
        kinds: fc.subarray(['audience', 'adGroupLink'] as const),
        excludes: fc.subarray(GLOBS, { maxLength: 2 }),
      }),
    }),
  );
  const keyOf = (change: Change) =>
    JSON.stringify([
      change.kind,
      change.action,
      change.id,
      change.name,
      'adGroupId' in change ? change.adGroupId : null,
    ]);

  it('hold exactly the whole plan’s changes within the scope, each delete with its unlinks first, and read back whole', () => {
    fc.assert(
      fc.property(scenario, ({ wanted, declaresAdGroups, existing: [others, same], prune, scope }) => {
        const names = new Set(others.map((full) => full.name));
        const live = liveState(
          [...others, ...same.filter((full) => !names.has(full.name))].map((full, index) =>
            liveAudience(index + 1, full),
          ),
          Object.fromEntries([1, 3, 5, 7].map((id) => [String(id), [adGroupLink(1), adGroupLink(2)]])),
        );
        const desired = {
          ...desiredState(
            wanted.map((full, index) => desiredAudience(full, declaresAdGroups[index] ? { adGroups: ['1'] } : {})),
          ),
          prune,
        };
        const whole = planAccount(desired, live, options);
        const scoped = planAccount(desired, live, { ...options, scope });
        const inScope = scopeTest(scope);
        const within = (change: Change) => inScope(scopeKindOf(change), changeNames(change));
        expect(scoped.changes.map(keyOf)).toEqual(whole.changes.filter(within).map(keyOf));
        for (const [index, change] of scoped.changes.entries()) {
          if (change.action !== 'delete') continue;
          const unlinks = whole.changes.filter((other) => other.action === 'unlink' && other.id === change.id);
          expect(
            scoped.changes
              .slice(0, index)
              .filter((other) => other.id === change.id)
              .map(keyOf),
          ).toEqual(unlinks.map(keyOf));
        }
        expect(scoped).toMatchObject({ partial: true, scope });
        expect(inconsistencies(JSON.parse(JSON.stringify(scoped)) as typeof scoped)).toEqual([]);
      }),
      RUNS,
    );
  });
});
