import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFINITION_FIELDS, REGION_FIELDS, TARGETING_FIELDS, type AudienceDefinition, type DefinitionField } from '../../src/model/index.js';
import { planAccount } from '../../src/plan/index.js';
import { audienceDefinition, audienceDefinitions, audienceName, shuffled } from '../helpers/arbitraries.js';
import { desiredAudience, desiredState, liveAudience, liveState } from '../helpers/builders.js';
import { planSchemaValidator } from '../helpers/plan-schema.js';

const options = { allowMassDelete: true };
const RUNS = { numRuns: 200 };

/** A desired state that declares, of each definition, its type and the fields `keep` selects (the file always has a type). */
function declare(definitions: AudienceDefinition[], keep: (field: DefinitionField) => boolean = () => true) {
  return desiredState(
    definitions.map((full) =>
      desiredAudience({ name: full.name, type: full.type, ...Object.fromEntries(DEFINITION_FIELDS.filter(keep).map((field) => [field, full[field]])) }),
    ),
  );
}

describe('planner properties', () => {
  it('planning a state against itself is empty', () => {
    fc.assert(
      fc.property(audienceDefinitions(6), fc.subarray([...DEFINITION_FIELDS]), (definitions, declaredFields) => {
        const live = liveState(definitions.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount(declare(definitions, (field) => declaredFields.includes(field)), live, options);
        expect(plan.changes).toEqual([]);
        expect(plan.errors).toEqual([]);
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
    const scenario = fc
      .tuple(audienceDefinitions(4), audienceDefinition(audienceName))
      .chain(([definitions, other]) =>
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
      fc.property(audienceDefinitions(5).chain((wanted) => fc.tuple(fc.constant(wanted), fc.tuple(...wanted.map((full) => audienceDefinition(fc.constant(full.name)))))), ([wanted, existing]) => {
        const live = liveState(existing.map((full, index) => liveAudience(index + 1, full)));
        const plan = planAccount(declare(wanted), live, options);
        const after = existing.map((full, index) => {
          const update = plan.changes.find((change) => change.action === 'update' && change.id === index + 1);
          return liveAudience(index + 1, update?.action === 'update' ? update.after : full);
        });
        expect(planAccount(declare(wanted), liveState(after), options).changes).toEqual([]);
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
});
