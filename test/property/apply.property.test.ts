/**
 * "After apply, plan shows no changes — always", checked against the emulator: random valid
 * files for the seeded account 1234 are planned and applied with the real client over the
 * real transport, then planned again; then the account drifts (an audience changed through
 * the API, some created by hand — one maybe in use by an ad group —, one deleted by hand) and
 * plan + apply must repair it, with the emulator's stored state as the judge. Each of these applies sends exactly as
 * many requests as its plan's estimate says.
 */
import fc from 'fast-check';
import { stringify } from 'lossless-json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Audience, AudiencesFile } from '../../src/config/generated/audiences.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import {
  DEFINITION_FIELDS,
  REGION_FIELDS,
  stableStringify,
  TARGETING_FIELDS,
  TARGETING_DECLARED_FIELDS,
  type AudienceDefinition,
  type DesiredState,
  type JsonObject,
  type JsonValue,
  type Region,
  type TargetingField,
} from '../../src/model/index.js';
import { validateConfig } from '../../src/config/index.js';
import { applyAndVerify } from '../../src/operations/apply.js';
import { importAccount } from '../../src/operations/import.js';
import { planDesired } from '../../src/operations/plan.js';
import { checkPlanIsFresh } from '../../src/operations/stale.js';
import type { Plan } from '../../src/plan/index.js';
import { definition } from '../helpers/builders.js';
import { audienceEntry, desiredFile } from '../helpers/emulator-arbitraries.js';
import {
  connectClient,
  desiredFromFile,
  linkAdGroup,
  resetEmulator,
  setFaults,
  storedAudiences,
  type LiveClient,
} from '../helpers/live-account.js';

let emulator: RunningEmulator;
let live: LiveClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  live = connectClient(emulator);
});
afterAll(async () => {
  await live.close();
  await emulator.close();
});

const options = { allowMassDelete: false };

/** Plans, checks the plan is applicable, applies it and checks every change went through. */
async function planAndApply(desired: DesiredState): Promise<Plan> {
  const plan = await planDesired(desired, options, live.client);
  expect(plan.errors).toEqual([]);
  const applied = await applyAndVerify(plan, { audiences: live.client });
  expect(applied.result.results.filter((result) => result.status !== 'ok')).toEqual([]);
  expect(applied.remaining).toEqual([]);
  return plan;
}

/**
 * As `apply PLAN` does it: the saved plan checked against the account, then applied; the requests this sent, as the
 * emulator logged them, are exactly as many as the plan's estimate says (the account is calm meanwhile).
 */
async function checkApplyAndCount(desired: DesiredState): Promise<Plan> {
  const plan = await planDesired(desired, options, live.client);
  expect(plan.errors).toEqual([]);
  const before = await loggedSeq();
  await checkPlanIsFresh(plan, live.client);
  const applied = await applyAndVerify(plan, { audiences: live.client });
  expect(applied.result.results.filter((result) => result.status !== 'ok')).toEqual([]);
  expect(applied.remaining).toEqual([]);
  expect(await loggedSince(before)).toBe(plan.estimate?.total);
  return plan;
}

async function loggedRequests(): Promise<Array<{ seq: number }>> {
  const answer = await fetch(`${emulator.url}/_emulator/requests`);
  return ((await answer.json()) as { requests: Array<{ seq: number }> }).requests;
}

async function loggedSeq(): Promise<number> {
  return (await loggedRequests()).at(-1)?.seq ?? 0;
}

async function loggedSince(seq: number): Promise<number> {
  return (await loggedRequests()).filter((request) => request.seq > seq).length;
}

async function expectNoChanges(desired: DesiredState): Promise<void> {
  const plan = await planDesired(desired, options, live.client);
  expect(plan.errors).toEqual([]);
  expect(plan.changes).toEqual([]);
}

/** The full definition an entry stands for, as someone editing the audience elsewhere would send it. */
function fullDefinition(entry: Audience) {
  const [desired] = desiredFromFile({ adAccountId: 1234, audiences: [entry] }).audiences;
  if (!desired) throw new Error('unreachable: one audience in, one out');
  return desired.definition;
}

interface Drift {
  /** Which declared audience is changed through the API, and its new definition (the name stays). */
  changed: { pick: number; entry: Audience };
  /** Audiences created by hand; `legacy-…` ones are ignored when the file says so. */
  created: Array<{ name: string; linkedTo: 101 | 102 | 105 | null }>;
  /** Which declared audience is deleted by hand. */
  deleted: number;
}

const drift: fc.Arbitrary<Drift> = fc.record({
  changed: fc.record({ pick: fc.nat(), entry: audienceEntry('placeholder') }),
  created: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom('hand-1', 'hand-2', 'legacy-1'),
      linkedTo: fc.constantFrom(101 as const, 102 as const, 105 as const, null, null),
    }),
    {
      selector: (created) => created.name,
      minLength: 1,
      maxLength: 3,
    },
  ),
  deleted: fc.nat(),
});

async function idsByName(): Promise<Map<string, string>> {
  return new Map((await live.client.list()).map((summary) => [summary.name, summary.id]));
}

async function makeDrift(file: AudiencesFile, change: Drift): Promise<void> {
  const ids = await idsByName();
  const idOf = (index: number): string => {
    const name = file.audiences[index % file.audiences.length]?.name ?? '';
    const id = ids.get(name);
    if (id === undefined) throw new Error(`audience "${name}" was not created`);
    return id;
  };
  const target = file.audiences[change.changed.pick % file.audiences.length] as Audience;
  await live.client.update(idOf(change.changed.pick), fullDefinition({ ...change.changed.entry, name: target.name }));
  for (const created of change.created) {
    const made = await live.client.create(definition({ name: created.name }));
    if (created.linkedTo !== null) await linkAdGroup(emulator, made.id, created.linkedTo);
  }
  await live.client.delete(idOf(change.deleted));
}

/**
 * The emulator's own records: each declared audience exactly once, and hand-made ones only where the file leaves them.
 */
async function expectStoredState(file: AudiencesFile, change: Drift | null): Promise<void> {
  const stored = await storedAudiences(emulator);
  const names = stored.map((audience) => audience.name).sort();
  const ignored = (name: string) => (file.ignore ?? []).length > 0 && name.startsWith('legacy-');
  const expected = [
    ...file.audiences.map((audience) => audience.name),
    ...(change?.created ?? []).map((created) => created.name).filter((name) => !file.prune || ignored(name)),
  ].sort();
  expect(names).toEqual(expected);
}

/**
 * What the service holds of a definition, in the terms a plan compares: regions by code,
 * members on the fields a request sends with ids as text (the service spells ids its own way
 * and adds display names).
 */
function held(full: AudienceDefinition): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const field of DEFINITION_FIELDS) {
    const value = full[field] as JsonValue;
    if ((REGION_FIELDS as readonly string[]).includes(field))
      out[field] = (value as unknown as Region[]).map((region) => region.value).sort();
    else if ((TARGETING_FIELDS as readonly string[]).includes(field)) {
      const keys = TARGETING_DECLARED_FIELDS[field as TargetingField];
      out[field] = (value as JsonObject[])
        .map((member) => stableStringify(Object.fromEntries(keys.map((key) => [key, String(member[key])]))))
        .sort();
    } else out[field] = Array.isArray(value) ? [...value].map(String).sort() : value;
  }
  return out;
}

/** An entry with some fields deleted; the *Type fields go too, so that they follow from the lists that are left. */
function withoutFields(entry: Audience, deleted: string[]): Audience {
  const kept = Object.entries(entry).filter(
    ([field]) =>
      field === 'name' ||
      field === 'type' ||
      !(deleted.includes(field) || ['ageType', 'genderType', 'locationType'].includes(field)),
  );
  return Object.fromEntries(kept) as unknown as Audience;
}

describe('apply against the emulator', () => {
  it('a declared audience is its whole definition: whatever the live audience held, apply leaves exactly the file, and the next plan is empty', async () => {
    const spellings = fc.constantFrom('catalog', 'number', 'text');
    // The desired definition is another one, or (the edit people make most) the live one with
    // some of its fields deleted from the file.
    const scenario = audienceEntry('the-audience').chain((liveEntry) =>
      fc.tuple(
        fc.constant(liveEntry),
        fc.oneof(
          audienceEntry('the-audience'),
          fc.subarray(Object.keys(liveEntry)).map((deleted) => withoutFields(liveEntry, deleted)),
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(scenario, spellings, async ([liveEntry, desiredEntry], memberIds) => {
        await resetEmulator(emulator);
        await setFaults(emulator, { memberIds });
        const made = await live.client.create(fullDefinition(liveEntry));
        const desired = desiredFromFile({ adAccountId: 1234, audiences: [desiredEntry] });
        await planAndApply(desired);
        const read = await live.client.read(made.id);
        expect(held(read.definition)).toEqual(
          held((desired.audiences[0] as DesiredState['audiences'][number]).definition),
        );
        await expectNoChanges(desired);
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it('never loses what the file cannot hold: any fields of a live audience beyond the file stay exactly as they were, whatever valid definition is applied', async () => {
    // Fields of the service the tool does not model (no field of the spec starts with x), with any JSON values.
    // Any JSON, and Longs past 2^53 (bigints, written with every digit), which JSON.parse would change.
    const value = fc.oneof(
      fc.jsonValue(),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }),
      fc.array(fc.record({ id: fc.bigInt({ min: 2n ** 53n, max: 2n ** 63n - 1n }), name: fc.string() })),
    );
    const extras = fc.dictionary(fc.stringMatching(/^x[A-Za-z0-9]{0,12}$/), value, { minKeys: 1, maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(
        audienceEntry('the-audience'),
        audienceEntry('the-audience'),
        extras,
        async (liveEntry, desiredEntry, fields) => {
          await resetEmulator(emulator);
          const made = await live.client.create(fullDefinition(liveEntry));
          const given = await fetch(`${emulator.url}/_emulator/audiences/${made.id}/fields`, {
            method: 'PUT',
            body: stringify(fields),
          });
          expect(given.status).toBe(200);
          const before = (await storedAudiences(emulator))[0]?.extra;
          const desired = desiredFromFile({ adAccountId: 1234, audiences: [desiredEntry] });
          await planAndApply(desired);
          const [after] = await storedAudiences(emulator);
          expect(after?.extra).toEqual(before);
          expect(held((await live.client.read(made.id)).definition)).toEqual(
            held((desired.audiences[0] as DesiredState['audiences'][number]).definition),
          );
          await expectNoChanges(desired);
        },
      ),
      { numRuns: 100 },
    );
  }, 60_000);

  it('applying any valid file, then planning again, shows no changes; a drift is repaired the same way', async () => {
    await fc.assert(
      fc.asyncProperty(desiredFile(5), drift, async (file, change) => {
        await resetEmulator(emulator);
        const desired = desiredFromFile(file);

        const first = await checkApplyAndCount(desired);
        expect(first.summary.create).toBe(file.audiences.length);
        await expectNoChanges(desired);
        await expectStoredState(file, null);

        await makeDrift(file, change);
        const repair = await checkApplyAndCount(desired);
        expect(repair.summary.create).toBeGreaterThanOrEqual(1);
        await expectNoChanges(desired);
        await expectStoredState(file, change);
      }),
      { numRuns: 100 },
    );
  }, 60_000);

  it('importing what any valid file made gives a file that plans to no changes', async () => {
    await fc.assert(
      fc.asyncProperty(desiredFile(4), async (file) => {
        await resetEmulator(emulator);
        await planAndApply(desiredFromFile(file));
        const imported = await importAccount(
          { adAccountId: 1234, out: undefined, force: false, names: [] },
          live.client,
          process.cwd(),
        );
        expect(imported.imported).toBe(file.audiences.length);
        const result = validateConfig(imported.text, 'imported.yaml');
        if (!result.ok) throw new Error(result.issues.map((issue) => issue.message).join('\n'));
        await expectNoChanges(result.value);
      }),
      { numRuns: 40 },
    );
  }, 30_000);
});
