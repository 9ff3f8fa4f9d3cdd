import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, workspace } from '../helpers/cli.js';

/**
 * `audiences emulator --seed FILE`: an account that already holds audiences and links, made
 * from a desired-state file as the ad manager would make them, for `--emulator` and for a
 * served emulator alike.
 */
const SEED = `adAccountId: 1234
audiences:
  - name: made-in-the-ad-manager
    id: 42
    type: DISPLAY
    ages: [30, 35]
    adGroups: [101, 102]
  - name: readers
    type: DISPLAY
    genders: [F]
`;

/** The team's file: one of the seeded audiences, narrowed to one ad group and other ages. */
const TEAM = `adAccountId: 1234
audiences:
  - name: made-in-the-ad-manager
    type: DISPLAY
    ages: [40]
    adGroups: [101]
`;

async function storedNames(cwd: string, file = join('.audiences', 'emulator-state.json')): Promise<string[]> {
  const state = JSON.parse(await readFile(join(cwd, file), 'utf8')) as { audiences: Array<{ name: string }> };
  return state.audiences.map((audience) => audience.name).sort();
}

describe('audiences emulator --seed', () => {
  it("seeds --emulator's state with a file's audiences and links; plan and import then see an account the tool did not make", async () => {
    const cwd = await workspace({ 'seed.yaml': SEED, 'audiences.yaml': TEAM });

    const seeded = await runCli(['emulator', '--seed', 'seed.yaml', '--seed-only'], { cwd });
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toBe('');
    expect(seeded.stderr).toBe(
      [
        'Seeded ad account 1234 from seed.yaml: 2 audiences, 2 links: made-in-the-ad-manager (id 100001, ad groups 101, 102); readers (id 100002).',
        "note: the file's `id:` values are not kept: the emulator gives its own ids",
        'The state is in .audiences/emulator-state.json, which `--emulator` reads in this folder.',
        '',
      ].join('\n'),
    );
    expect(await storedNames(cwd)).toEqual(['made-in-the-ad-manager', 'readers']);

    // The seeded links are the account's: the team's file unlinks 102 and changes the ages.
    const plan = await runCli(['plan', '--emulator', '--format', 'json'], { cwd });
    expect(plan.code, plan.stderr).toBe(0);
    const [only] = JSON.parse(plan.stdout) as Array<{
      changes: Array<{ action: string; name: string; adGroupId?: string }>;
    }>;
    const changes = only!.changes;
    expect(
      changes
        .map((change) => `${change.action} ${change.name}${change.adGroupId ? ` ${change.adGroupId}` : ''}`)
        .sort(),
    ).toEqual(['unlink made-in-the-ad-manager 102', 'update made-in-the-ad-manager']);
    const imported = await runCli(['import', '--emulator', '--ad-account', '1234'], { cwd });
    expect(imported.stdout).toContain('  - name: readers\n    id: 100002\n    type: DISPLAY\n    genders: [F]\n');
  });

  it('refuses names the account already holds, before seeding anything, and says how to start again', async () => {
    const cwd = await workspace({
      'seed.yaml': SEED,
      'more.yaml':
        'adAccountId: 1234\naudiences:\n  - name: fresh\n    type: DISPLAY\n  - name: readers\n    type: DISPLAY\n',
      'other.yaml': 'adAccountId: 5678\naudiences:\n  - name: other\n    type: DISPLAY\n',
    });
    expect((await runCli(['emulator', '--seed', 'seed.yaml', '--seed-only'], { cwd })).code).toBe(0);
    // Another account's file, named first, is not seeded either: a refusal leaves the emulator as it was.
    const again = await runCli(['emulator', '--seed', 'other.yaml', '--seed', 'more.yaml', '--seed-only'], { cwd });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      'error[SEED_NAME_TAKEN]: ad account 1234 already holds "readers", which more.yaml seeds; nothing was seeded',
    );
    expect(again.stderr).toContain(
      "hint: delete the emulator's state file (.audiences/emulator-state.json for --emulator, or the --state file)",
    );
    expect(await storedNames(cwd)).toEqual(['made-in-the-ad-manager', 'readers']);
  });

  it('says which link the emulator refused, and what was seeded before it', async () => {
    const cwd = await workspace({
      'seed.yaml':
        'adAccountId: 1234\naudiences:\n  - name: first\n    type: DISPLAY\n  - name: second\n    type: DISPLAY\n    adGroups: [201]\n',
    });
    const refused = await runCli(['emulator', '--seed', 'seed.yaml', '--state', 'state.json', '--seed-only'], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error[SEED_LINK]: ad group 201 cannot be linked to audience "second": 404: ad group 201 not found in ad account 1234',
    );
    expect(refused.stderr).toContain('seeded before it, and kept: "first" (id 100001), "second" (id 100002)');
    expect(refused.stderr).toContain("hint: name ad groups the emulator's account has");
    expect(await storedNames(cwd, 'state.json')).toEqual(['first', 'second']);
  });

  it('refuses an invalid seed file with its line and column, and a --seed-only without --seed', async () => {
    const cwd = await workspace({ 'seed.yaml': 'adAccountId: 1234\naudiences:\n  - name: x\n    type: BANNER\n' });
    const invalid = await runCli(['emulator', '--seed', 'seed.yaml', '--seed-only'], { cwd });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/seed\.yaml:4:11/);
    expect(await storedNames(cwd)).toEqual([]);
    const alone = await runCli(['emulator', '--seed-only'], { cwd });
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain('error[USAGE]: --seed-only needs --seed FILE');
    await expect(stat(join(cwd, 'state.json'))).rejects.toThrow();
  });
});
