import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runInProcess, workspace } from '../helpers/cli.js';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));

async function exampleFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? exampleFiles(join(dir, entry.name)) : [join(dir, entry.name)])));
  return nested.flat().filter((file) => /\.ya?ml$/.test(file));
}

/** Every `npx audiences …` invocation in a pipeline file. */
function invocations(text: string): string[][] {
  return [...text.matchAll(/npx audiences ([^\n|>&]+)/g)].map((match) => (match[1] ?? '').trim().split(/\s+/));
}

describe('pipeline examples', () => {
  it('are valid YAML and use only commands and options the tool has', async () => {
    const files = await exampleFiles(examples);
    expect(files.length).toBeGreaterThanOrEqual(3);
    const cwd = await workspace({});
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(() => parse(text), file).not.toThrow();
      const commands = invocations(text);
      expect(commands.length, file).toBeGreaterThan(0);
      for (const args of commands) {
        // No service and no file here: each command fails, but never on its arguments.
        const result = await runInProcess(args, { cwd, env: {} });
        expect(result.stderr, `${file}: audiences ${args.join(' ')}`).not.toContain('error[USAGE]');
        expect(result.stderr, `${file}: audiences ${args.join(' ')}`).not.toMatch(/Unknown argument|Invalid values/);
      }
    }
  });
});
