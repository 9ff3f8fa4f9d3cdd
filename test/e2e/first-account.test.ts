import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInProcess, workspace } from '../helpers/cli.js';

/**
 * The README's first account, as a new user follows it: the commands of its shell blocks run
 * in order against the emulator, the file `import` wrote edited as the README says (its
 * `audiences: []` replaced by the README's YAML), `yes` typed at apply's prompt.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));

/** The section's blocks of one kind, in order. */
function blocks(section: string, language: string): string[] {
  return [...section.matchAll(new RegExp('```' + language + '\\n([^]*?)```', 'g'))].map((match) => match[1]!);
}

/** The `npx audiences …` lines of a shell block, each as its arguments (comments dropped). */
function audiencesCommands(block: string): string[][] {
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.startsWith('npx audiences '))
    .map((line) => line.split(/\s+/).slice(2));
}

describe("the README's first account", () => {
  it('imports the emulator’s account, plans the edited file, applies it on `yes`, and plans no changes after', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8');
    const start = readme.indexOf('## A first account');
    const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
    const [importing = '', editing = ''] = blocks(section, 'sh');
    const [audiences = ''] = blocks(section, 'yaml');
    const steps = [...audiencesCommands(importing), ...audiencesCommands(editing)];
    expect(steps.map((args) => args[0])).toEqual(['import', 'validate', 'plan', 'apply', 'plan']);

    const cwd = await workspace({});
    const [imported, ...rest] = steps;
    const first = await runInProcess(imported!, { cwd, env: {} });
    expect(first.code, first.stderr).toBe(0);
    const file = await readFile(join(cwd, 'audiences.yaml'), 'utf8');
    expect(file).toMatch(/^audiences: \[\]$/m);
    await writeFile(join(cwd, 'audiences.yaml'), file.replace(/^audiences: \[\]\n/m, audiences));

    const results = [];
    for (const args of rest) results.push(await runInProcess(args, { cwd, env: {}, tty: true, answers: ['yes'] }));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const [validated, planned, applied, again] = results;
    expect(validated!.stdout).toContain('audiences.yaml: ok (1 audience)');
    expect(planned!.stdout).toContain('+ create audience "seoul-women-20s"');
    expect(applied!.stdout + applied!.stderr).toContain('Apply complete for ad account 1234: 1 done');
    expect(again!.stdout).toContain('No changes');
  });
});
