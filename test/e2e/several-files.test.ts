/**
 * An ad account declared in several files, through the real CLI against the emulator: the files are planned as one
 * account (prune and the mass-delete guard act on what all of them declare), each change names the file it comes
 * from in every view, a saved plan of them applies as one account, a name two of them declare is refused, and scoped
 * runs and `emulator --seed` work across them.
 */
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { Plan } from '../../src/plan/index.js';
import { emulatorEnv, runCli, runInProcess, workspace } from '../helpers/cli.js';
import { linkAdGroup, outside, storedAudiences } from '../helpers/live-account.js';

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

const run = (cwd: string, ...args: string[]) => runInProcess(args, { cwd, env });

/** Team A's file: one audience of its own, one changed; `other` is team B's file, as seen from it. */
const teamA = (other: string) => `adAccountId: 1234
accountFiles: [${other}]
prune: true
audiences:
  - name: alpha
    type: DISPLAY
  - name: alpha-narrowed
    type: DISPLAY
    adGroups: [101]
`;

/** Team B's file: its own audience, and a glob it leaves alone; `other` is team A's file, as seen from it. */
const teamB = (other: string) => `adAccountId: 1234
accountFiles: [${other}]
prune: true
ignore: ["legacy-*"]
audiences:
  - name: beta
    type: DISPLAY
    ages: [20]
`;

/** The two files side by side in one folder. */
const TEAM_A = teamA('b.yaml');
const TEAM_B = teamB('a.yaml');

async function jsonPlans(cwd: string, ...args: string[]): Promise<Plan[]> {
  const result = await run(cwd, 'plan', '--format', 'json', ...args);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as Plan[];
}

/** Each change as `action name file`, in the plan's order. */
function changesOf(plan: Plan | undefined): string[] {
  return (plan?.changes ?? []).map(
    (change) =>
      `${change.action} ${change.name}${change.action === 'unlink' ? ` ${change.adGroupId}` : ''} ${change.file ?? '-'}`,
  );
}

async function names(): Promise<string[]> {
  return (await storedAudiences(emulator)).map((audience) => audience.name).sort();
}

describe('an ad account in several files', () => {
  it('prunes only what no file declares, names the file of each change, and a saved plan of both applies as one account', async () => {
    const narrowed = await outside.create(emulator, 'alpha-narrowed');
    await linkAdGroup(emulator, narrowed, 101);
    await linkAdGroup(emulator, narrowed, 102);
    await outside.create(emulator, 'beta');
    await outside.create(emulator, 'legacy-kept');
    const stray = await outside.create(emulator, 'stray');
    await linkAdGroup(emulator, stray, 103);
    const cwd = await workspace({
      'team-a/audiences.yaml': teamA('../team-b/audiences.yaml'),
      'team-b/audiences.yaml': teamB('../team-a/audiences.yaml'),
    });
    const files = ['-f', 'team-a/audiences.yaml', '-f', 'team-b/audiences.yaml'];
    const plans = await jsonPlans(cwd, ...files);
    expect(plans).toHaveLength(1);
    expect(changesOf(plans[0])).toEqual([
      'create alpha team-a/audiences.yaml',
      'unlink alpha-narrowed 102 team-a/audiences.yaml',
      'update beta team-b/audiences.yaml',
      'unlink stray 103 -',
      'delete stray -',
    ]);

    const text = await run(cwd, 'plan', ...files);
    expect(text.stdout).toContain('  + create audience "alpha" (from team-a/audiences.yaml)\n');
    expect(text.stdout).toMatch(/~ update audience "beta".* \(from team-b\/audiences\.yaml\)\n/);
    expect(text.stdout).toMatch(/- delete audience "stray" \(id \d+\) \[[^\]]*\]\n/);
    const markdown = await run(cwd, 'plan', '--format', 'markdown', ...files);
    expect(markdown.stdout).toContain('| | change | file | fields | marks |\n');
    expect(markdown.stdout).toMatch(/\| `-` \| delete audience "stray" \(id \d+\) \| no file \(prune\) \|/);
    expect(markdown.stdout).toMatch(/\| `\+` \| create audience "alpha" \| team-a/);

    expect((await run(cwd, 'plan', ...files, '--out', 'plan.json')).code).toBe(0);
    const saved = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as Plan[];
    expect(saved.map((plan) => plan.adAccountId)).toEqual([1234]);
    const applied = await run(cwd, 'apply', 'plan.json');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(await names()).toEqual(['alpha', 'alpha-narrowed', 'beta', 'legacy-kept']);
    expect((await run(cwd, 'plan', '--detailed-exitcode', ...files)).code).toBe(0);
  });

  it('plans its files only all together, each naming the others: one alone is never taken for the whole account', async () => {
    await outside.create(emulator, 'beta');
    const cwd = await workspace({
      'team-a/audiences.yaml': teamA('../team-b/audiences.yaml'),
      'team-b/audiences.yaml': teamB('../team-a/audiences.yaml'),
      'c.yaml': 'adAccountId: 1234\naudiences:\n  - name: gamma\n    type: DISPLAY\n',
    });
    const before = await storedAudiences(emulator);
    // Alone, team A's file would prune team B's audience: it names team B's, so it is refused, changing nothing.
    const alone = await run(cwd, 'apply', '--auto-approve', '--allow-mass-delete', '-f', 'team-a/audiences.yaml');
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(
      'team-a/audiences.yaml:2:16: "../team-b/audiences.yaml" is named as a file of ad account 1234, but this run was not given it (team-b/audiences.yaml)\n',
    );
    expect(alone.stderr).toContain('give every one, -f team-a/audiences.yaml -f team-b/audiences.yaml\n');
    // A third file of the account that neither names, and that names neither, is refused at each place.
    const third = await run(cwd, 'validate', 'team-a/audiences.yaml', 'team-b/audiences.yaml', 'c.yaml');
    expect(third.code).toBe(1);
    expect(third.stderr).toContain(
      'team-a/audiences.yaml:1:14: c.yaml describes ad account 1234 too, and this file does not name it under accountFiles\n',
    );
    expect(third.stderr).toContain('`accountFiles: [../c.yaml]`');
    expect(third.stderr).toContain(
      'c.yaml:1:14: team-a/audiences.yaml, team-b/audiences.yaml describe ad account 1234 too, and this file does not name them under accountFiles\n',
    );
    expect(third.stderr).toContain('`accountFiles: [team-a/audiences.yaml, team-b/audiences.yaml]`');
    expect(await storedAudiences(emulator)).toEqual(before);
  });

  it('reads a file named twice once, however the path is spelt: it is not a second file of its account', async () => {
    const cwd = await workspace({ 'a.yaml': TEAM_A, 'b.yaml': TEAM_B });
    const once = await run(cwd, 'plan', 'a.yaml', 'b.yaml');
    const twice = await run(cwd, 'plan', 'a.yaml', 'b.yaml', './a.yaml', join(cwd, 'b.yaml'));
    expect(twice.stderr).toBe('');
    expect([twice.code, twice.stdout]).toEqual([0, once.stdout]);
    const validated = await run(cwd, 'validate', 'a.yaml', 'b.yaml', './a.yaml');
    expect(validated.stdout).toBe('a.yaml: ok (2 audiences)\nb.yaml: ok (1 audience)\n');
  });

  it('refuses a name that two files of the account declare, naming both places, before reading the account', async () => {
    const cwd = await workspace({
      'a.yaml': TEAM_A,
      'b.yaml': `${TEAM_B}  - name: alpha\n    type: DISPLAY\n`,
    });
    const result = await run(cwd, 'plan', 'a.yaml', 'b.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('b.yaml:9:11: audience "alpha" is also declared in a.yaml:5:11');
    expect(result.stderr).toContain('an audience belongs to one file of its ad account');
    expect(await names()).toEqual([]);
  });

  it('places every name a copy shares with its file, a thousand of them, in both files', async () => {
    // Placing each problem had parsed both files again: two files of 1000 shared names took over a minute and 2 GB.
    const file = (other: string) =>
      `adAccountId: 1234\naccountFiles: [${other}]\naudiences:\n` +
      Array.from({ length: 1000 }, (_, index) => `  - name: n${index}\n    type: DISPLAY\n`).join('');
    const cwd = await workspace({ 'a.yaml': file('b.yaml'), 'b.yaml': file('a.yaml') });
    const result = await run(cwd, 'validate', '--format', 'json', 'a.yaml', 'b.yaml');
    expect(result.code).toBe(1);
    const [a, b] = JSON.parse(result.stdout) as Array<{
      errors: Array<{ line: number; column: number; message: string }>;
    }>;
    expect(a?.errors).toEqual([]);
    expect(b?.errors).toHaveLength(1000);
    for (const [index, error] of (b?.errors ?? []).entries())
      expect([error.line, error.column, error.message]).toEqual([
        4 + 2 * index,
        11,
        `audience "n${index}" is also declared in a.yaml:${4 + 2 * index}:11`,
      ]);
  });

  it("refuses a name one file declares that another file's ignore pattern leaves alone, as one file does", async () => {
    await outside.create(emulator, 'legacy-kept');
    const cwd = await workspace({
      'a.yaml': `${TEAM_A}  - name: legacy-kept\n    type: DISPLAY\n    ages: [30]\n`,
      'b.yaml': TEAM_B,
    });
    const before = await storedAudiences(emulator);
    const result = await run(cwd, 'apply', '--auto-approve', '-f', 'a.yaml', '-f', 'b.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'a.yaml:10:11: "legacy-kept" matches the ignore pattern "legacy-*" of b.yaml:4:10, a file of the same ad account',
    );
    expect(await storedAudiences(emulator)).toEqual(before);
  });

  it('renames an audience in place from another file than the one that declared it (renamedFrom names the account)', async () => {
    const old = await outside.create(emulator, 'old-beta');
    await linkAdGroup(emulator, old, 102);
    const cwd = await workspace({
      'a.yaml': TEAM_A,
      'b.yaml': TEAM_B.replace('  - name: beta\n', '  - name: beta\n    renamedFrom: old-beta\n'),
    });
    const [plan] = await jsonPlans(cwd, 'a.yaml', 'b.yaml');
    expect(changesOf(plan)).toEqual(['create alpha a.yaml', 'create alpha-narrowed a.yaml', 'update beta b.yaml']);
    expect(plan?.changes.find((change) => change.name === 'beta')?.id).toBe(old);
  });

  it('refuses a renamedFrom naming what another file of the account declares or renames from, as one file does', async () => {
    await outside.create(emulator, 'old-beta');
    const renamed = (file: string) => `${file}  - name: gamma\n    renamedFrom: [old-beta, alpha]\n    type: DISPLAY\n`;
    const cwd = await workspace({
      'a.yaml': `${TEAM_A}  - name: delta\n    renamedFrom: old-beta\n    type: DISPLAY\n`,
      'b.yaml': renamed(TEAM_B),
    });
    const before = await storedAudiences(emulator);
    const validated = await run(cwd, 'validate', 'a.yaml', 'b.yaml');
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain('b.yaml:10:19: "old-beta" is also given by a.yaml:11:18');
    expect(validated.stderr).toContain(
      'b.yaml:10:29: "alpha" is the name of an audience a.yaml:5:11 declares: an entry cannot be renamed from a name the account declares',
    );
    const planned = await run(cwd, 'plan', 'a.yaml', 'b.yaml');
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('error[CONFIG_INVALID]: b.yaml is not valid (2 problems)');
    expect(await storedAudiences(emulator)).toEqual(before);
  });

  it('holds the deletes to the guard of all the files: the managed audiences of the account, the strictest share', async () => {
    for (const name of ['alpha', 'beta', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8'])
      await outside.create(emulator, name);
    const cwd = await workspace({
      // Team A would allow any share; team B sets none, so the default 30% holds for the account.
      'a.yaml': TEAM_A.replace('prune: true\n', 'prune: true\nmassDelete: { percent: 100 }\n'),
      'b.yaml': TEAM_B,
    });
    const refused = await jsonPlans(cwd, 'a.yaml', 'b.yaml');
    expect(refused[0]?.errors.map((error) => error.message)).toEqual([
      'the plan deletes 8 of the 10 managed audiences (80%), more than the 30% allowed',
    ]);
    const allowed = await jsonPlans(cwd, 'a.yaml', 'b.yaml', '--allow-mass-delete');
    expect(allowed[0]?.errors).toEqual([]);
    expect(allowed[0]?.summary.delete).toBe(8);
  });

  it('scopes a run across the files, and seeds the emulator from both', async () => {
    const cwd = await workspace({ 'a.yaml': TEAM_A, 'b.yaml': TEAM_B });
    const seeded = await runCli(['emulator', '--seed', 'a.yaml', '--seed', 'b.yaml', '--seed-only'], { cwd });
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stderr).toContain('Seeded ad account 1234 from a.yaml: 2 audiences');
    expect(seeded.stderr).toContain('Seeded ad account 1234 from b.yaml: 1 audience');
    const emulated = (...args: string[]) => runCli(['--emulator', ...args], { cwd });
    expect((await emulated('plan', 'a.yaml', 'b.yaml', '--detailed-exitcode')).code).toBe(0);

    // Outside the scope, team A's edit is not planned.
    await writeFile(
      join(cwd, 'a.yaml'),
      TEAM_A.replace('  - name: alpha\n    type: DISPLAY\n', '  - name: alpha\n    type: DISPLAY\n    ages: [30]\n'),
    );
    await writeFile(join(cwd, 'b.yaml'), TEAM_B.replace('ages: [20]', 'ages: [25]'));
    const planned = async (...args: string[]) =>
      changesOf((JSON.parse((await emulated('plan', '--format', 'json', ...args)).stdout) as Plan[])[0]);
    expect(await planned('a.yaml', 'b.yaml', '--target', 'beta*')).toEqual(['update beta b.yaml']);
    expect(await planned('a.yaml', 'b.yaml')).toEqual(['update alpha a.yaml', 'update beta b.yaml']);
  });

  it('keeps the images beside the one file that declares them, and refuses them in two files of the account', async () => {
    const images = `images:
  - name: hero
    prompt: a spring picnic in a park, watercolor
    version: v2.0
    width: 512
    height: 384
    output: hero.webp
`;
    const cwd = await workspace({
      'a.yaml': teamA('team-b/b.yaml'),
      'team-b/b.yaml': teamB('../a.yaml').replace('audiences:', `${images}audiences:`),
    });
    expect((await run(cwd, 'plan', 'a.yaml', 'team-b/b.yaml', '--out', 'plan.json')).code).toBe(0);
    const [plan] = JSON.parse(await readFile(join(cwd, 'plan.json'), 'utf8')) as Plan[];
    expect(changesOf(plan)).toContain('generate hero team-b/b.yaml');
    const applied = await run(cwd, 'apply', 'plan.json');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect((await stat(join(cwd, 'team-b', 'hero.webp'))).isFile()).toBe(true);
    expect((await stat(join(cwd, 'team-b', 'images.lock.json'))).isFile()).toBe(true);
    expect((await run(cwd, 'plan', '--detailed-exitcode', 'a.yaml', 'team-b/b.yaml')).code).toBe(0);

    await writeFile(join(cwd, 'a.yaml'), teamA('team-b/b.yaml').replace('audiences:', `${images}audiences:`));
    const refused = await run(cwd, 'plan', 'a.yaml', 'team-b/b.yaml');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'team-b/b.yaml:6:3: a.yaml:5:3, a file of the same ad account, declares its images already',
    );
  });

  it('with --base, plans the files at the base as one account: what they would make too is drift', async () => {
    const cwd = await workspace({ 'a.yaml': TEAM_A, 'b.yaml': TEAM_B });
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.name=test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args],
        { cwd },
      );
    git('init', '--quiet', '--initial-branch=main');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'base');
    const applied = await run(cwd, 'apply', '--auto-approve', '-f', 'a.yaml', '-f', 'b.yaml');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    // In the ad manager, someone narrows team A's audience; on a branch, team B edits its own.
    const alpha = (await storedAudiences(emulator)).find((audience) => audience.name === 'alpha');
    await outside.update(emulator, String(alpha?.id), 'alpha', { ageType: 'NOT_ALL', ages: ['40'] });
    git('checkout', '--quiet', '-b', 'change');
    await writeFile(join(cwd, 'b.yaml'), TEAM_B.replace('ages: [20]', 'ages: [25]'));
    git('commit', '--quiet', '--all', '-m', 'change');
    const [plan] = await jsonPlans(cwd, 'a.yaml', 'b.yaml', '--base', 'main');
    expect(plan?.warnings.map((warning) => warning.code)).toEqual(['LINK_MISSING', 'OMITTED_FIELDS']);
    expect(
      plan?.changes.map((change) => `${change.name} ${'drift' in change ? 'drift' : 'own'} ${change.file}`),
    ).toEqual(['alpha drift a.yaml', 'beta own b.yaml']);
  });
});
