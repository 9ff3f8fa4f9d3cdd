/**
 * A team's everyday edits, through the real CLI against the emulator: a rename is an update of
 * the name that keeps the id and the ad groups (and a rename written without `renamedFrom` is
 * warned about); the `protect` globs keep an audience from delete and unlink whether or not the
 * file declares it; a pinned audience deleted in the ad manager is drift, planned again, not
 * an error that stops every plan.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, runInProcess, workspace } from '../helpers/cli.js';
import { linkAdGroup, outside, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

const createOutside = (name: string): Promise<string> => outside.create(emulator, name);
const deleteOutside = (id: string): Promise<void> => outside.delete(emulator, id);

async function idOf(name: string): Promise<string> {
  const found = (await storedAudiences(emulator)).find((audience) => audience.name === name);
  if (!found) throw new Error(`no audience named ${name}`);
  return found.id;
}

async function links(): Promise<Array<{ audienceId: string; adGroupId: string }>> {
  return (
    (await emulatorRoute(emulator, 'GET', '/_emulator/state')) as {
      links: Array<{ audienceId: string; adGroupId: string }>;
    }
  ).links;
}

const spring = (name: string, extra = '') => `adAccountId: 1234
prune: true
audiences:
  - name: ${name}
${extra}    type: DISPLAY
    ages: [20, 25]
    locations: [I]
  - name: evergreen
    type: DISPLAY
`;

describe('renames', () => {
  it('renamedFrom renames in place (same id, its LIVE ad group kept); then it changes nothing, and the plan says it can go', async () => {
    const cwd = await workspace({ 'audiences.yaml': spring('spring-2025') });
    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const id = await idOf('spring-2025');
    await linkAdGroup(emulator, id, 101);

    await writeFile(join(cwd, 'audiences.yaml'), spring('spring-2026', '    renamedFrom: spring-2025\n'));
    const plan = await runCli(['plan', '--detailed-exitcode'], { cwd, env });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      [
        `  ~ update audience "spring-2026" (id ${id}) [LIVE]`,
        '      name: spring-2025 → spring-2026',
        '      used by: ad group 101 "Seoul commuters" [LIVE]',
      ].join('\n'),
    );
    expect(plan.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 to unlink.');

    expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect(await idOf('spring-2026')).toBe(id);
    expect(await links()).toContainEqual({ audienceId: id, adGroupId: '101' });

    const after = await runCli(['plan', '--detailed-exitcode'], { cwd, env });
    expect(after.code).toBe(0);
    expect(after.stdout).toContain('No changes');
    expect(after.stdout).toContain(
      `warning[RENAMED_FROM_UNUSED]: audience "spring-2026" (id ${id}) is no longer named "spring-2025", so \`renamedFrom\` changes nothing`,
    );
    expect(after.stdout).toContain('hint: once the rename is applied, `renamedFrom` can go: remove it from the entry');
  });

  it('a rename written without renamedFrom is a delete and a create, warned about as LOOKS_LIKE_RENAME with the line to add', async () => {
    const cwd = await workspace({ 'audiences.yaml': spring('spring-2025') });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const id = await idOf('spring-2025');
    await linkAdGroup(emulator, id, 101);

    await writeFile(join(cwd, 'audiences.yaml'), spring('spring-2026'));
    const plan = await runInProcess(['plan'], { cwd, env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to create, 0 to update, 1 to delete, 1 to unlink.');
    expect(plan.stdout).toContain(
      `warning[LOOKS_LIKE_RENAME]: audience "spring-2026" is created with the definition of "spring-2025" (id ${id}, used by ad group 101), which the plan deletes: if it is a rename, the audience loses its id and its ad groups\n` +
        '  hint: to rename it in place (same id, ad groups kept), add `renamedFrom: "spring-2025"` to the entry of "spring-2026"',
    );
    const markdown = await runInProcess(['plan', '--format', 'markdown'], { cwd, env });
    expect(markdown.stdout).toContain('warning\\[LOOKS\\_LIKE\\_RENAME\\]: audience "spring-2026"');

    // The line the hint gives makes it the rename.
    await writeFile(join(cwd, 'audiences.yaml'), spring('spring-2026', '    renamedFrom: "spring-2025"\n'));
    const fixed = await runInProcess(['plan'], { cwd, env });
    expect(fixed.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete, 0 to unlink.');
    expect(fixed.stdout).not.toContain('LOOKS_LIKE_RENAME');
  });

  it('refuses a renamedFrom that cannot say which audience it means, naming the ids, and changes nothing', async () => {
    const old = await createOutside('old');
    const already = await createOutside('new');
    const cwd = await workspace({
      'audiences.yaml':
        'adAccountId: 1234\nprune: true\naudiences:\n  - { name: new, renamedFrom: old, type: DISPLAY }\n',
    });
    const plan = await runInProcess(['plan'], { cwd, env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `error[RENAME_AMBIGUOUS]: audience "new" is renamed from "old", but the ad account has both: "new" (id ${already}), "old" (id ${old})`,
    );
    expect(plan.stdout).toContain(
      'No changes planned: ad account 1234 cannot be brought to the desired state until the errors are resolved.',
    );
    const apply = await runInProcess(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(1);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual(['new', 'old']);

    await deleteOutside(already);
    const twin = await createOutside('old');
    const twins = await runInProcess(['plan'], { cwd, env });
    expect(twins.code).toBe(1);
    expect(twins.stdout).toContain(
      `error[RENAME_AMBIGUOUS]: audience "new" is renamed from "old", which 2 audiences of the ad account are named (ids ${old}, ${twin})`,
    );
    expect(twins.stdout).toContain(`hint: say which one this entry is with \`id:\` (one of ${old}, ${twin}`);
  });

  it('validate refuses an old name that another entry declares or that ignore covers, at its line and column, with a hint', async () => {
    const file = `adAccountId: 1234
ignore: ["legacy-*"]
audiences:
  - name: spring
    renamedFrom: winter
    type: DISPLAY
  - name: winter
    type: DISPLAY
  - name: summer
    renamedFrom: [legacy-summer]
    type: DISPLAY
`;
    const cwd = await workspace({ 'audiences.yaml': file });
    const result = await runCli(['validate'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).toContain(
      'audiences.yaml:5:18: audiences[0].renamedFrom: "winter" is the name of audiences[1] (line 7): an entry cannot be renamed from a name the file declares\n' +
        '  hint: if the rename is applied, remove `renamedFrom`; for a new audience that takes the old name, apply the rename first, then declare it',
    );
    expect(result.stderr + result.stdout).toContain(
      'audiences.yaml:10:19: audiences[2].renamedFrom[0]: "legacy-summer" matches the ignore pattern "legacy-*": an ignored audience is never touched, so it cannot be renamed\n' +
        '  hint: to rename it, narrow the ignore pattern so it leaves "legacy-summer" out; otherwise remove it from `renamedFrom`',
    );
  });
});

describe('the protect globs', () => {
  it('refuse a plan that deletes or unlinks an audience they name, declared or not, naming the glob; per-entry protect still holds', async () => {
    const legacy = await createOutside('brand-legacy');
    const core = await createOutside('brand-core');
    const safe = await createOutside('safe');
    await linkAdGroup(emulator, legacy, 101);
    await linkAdGroup(emulator, core, 101);
    await linkAdGroup(emulator, core, 102);
    await linkAdGroup(emulator, safe, 103);
    const file = `adAccountId: 1234
prune: true
protect: ["brand-*"]
audiences:
  - { name: brand-core, type: DISPLAY, adGroups: [101] }
  - { name: safe, type: DISPLAY, adGroups: [], protect: true }
`;
    const cwd = await workspace({ 'audiences.yaml': file });
    expect((await runCli(['validate'], { cwd, env })).code).toBe(0);
    const plan = await runCli(['plan'], { cwd, env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain(
      `error[PROTECTED]: audience "brand-core" (id ${core}) is protected by the protect glob "brand-*", but ad group 102 would be unlinked from it`,
    );
    expect(plan.stdout).toContain(
      `error[PROTECTED]: audience "brand-legacy" (id ${legacy}) is protected by the protect glob "brand-*", but the file does not declare it and prune would delete it`,
    );
    expect(plan.stdout).toContain(
      'error[PROTECTED]: audience "safe" is protected, but ad group 103 would be unlinked from it',
    );
    expect(plan.stdout).toContain('The plan has 3 errors and cannot be applied.');

    const apply = await runCli(['apply', '--auto-approve'], { cwd, env });
    expect(apply.code).toBe(1);
    expect((await storedAudiences(emulator)).map((audience) => audience.name).sort()).toEqual([
      'brand-core',
      'brand-legacy',
      'safe',
    ]);
    expect(await links()).toHaveLength(4);
  });
});

describe('a pinned audience deleted in the ad manager', () => {
  it('is drift: planned again as a create with a warning, the rest as usual; after the apply, the live audience of its name is taken, with the id to write', async () => {
    const cwd = await workspace({ 'audiences.yaml': spring('spring-2025') });
    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    expect((await runInProcess(['import', '--ad-account', '1234', '-o', 'imported.yaml'], { cwd, env })).code).toBe(0);
    const imported = await readFile(join(cwd, 'imported.yaml'), 'utf8');
    const gone = await idOf('spring-2025');
    expect(imported).toContain(`id: ${gone}`);
    await writeFile(
      join(cwd, 'audiences.yaml'),
      imported.replace('prune: false', 'prune: true').replace('name: evergreen', 'name: evergreen\n    ages: [30]'),
    );
    await deleteOutside(gone);

    const drift = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(drift.stderr).toBe('');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('+ create audience "spring-2025"');
    expect(drift.stdout).toContain('~ update audience "evergreen"');
    expect(drift.stdout).toContain(
      `warning[PINNED_ID_DELETED]: audience "spring-2025" pins id ${gone}, which the ad account 1234 no longer has: it was deleted outside the tool, so the plan creates it again (under a new id)`,
    );
    expect(drift.stdout).not.toContain('error[');

    expect((await runInProcess(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
    const again = await idOf('spring-2025');
    const settled = await runInProcess(['plan', '--detailed-exitcode'], { cwd, env });
    expect(settled.code).toBe(0);
    expect(settled.stdout).toContain('No changes');
    expect(settled.stdout).toContain(`the account's audience "spring-2025" (id ${again}) is taken as it, by its name`);
    expect(settled.stdout).toContain(`hint: write \`id: ${again}\` in place of \`id: ${gone}\``);
  });
});
