import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The project's own lint (eslint.config.js) on files it otherwise ignores, and what its import-cycle rule says of each.
 */
async function cycleMessages(files: string[]): Promise<Record<string, string[]>> {
  const eslint = new ESLint({ cwd: root, ignore: false });
  const results = await eslint.lintFiles(files);
  return Object.fromEntries(
    results.map((result) => [
      result.filePath.slice(root.length),
      result.messages
        .filter((message) => message.ruleId === 'local/no-import-cycle')
        .map((message) => `${message.line}: ${message.message}`),
    ]),
  );
}

describe('the lint refuses import cycles', () => {
  it('two modules that import each other, for types only, each named with the path back; a module that only imports one of them is fine', async () => {
    const messages = await cycleMessages([
      'test/fixtures/lint/cycle/a.ts',
      'test/fixtures/lint/cycle/b.ts',
      'test/fixtures/lint/cycle/c.ts',
    ]);
    const fix = 'Move what both need into the leaf module it describes, or a types module both import.';
    expect(messages).toEqual({
      'test/fixtures/lint/cycle/a.ts': [
        `2: Import cycle: test/fixtures/lint/cycle/a.ts → test/fixtures/lint/cycle/b.ts → test/fixtures/lint/cycle/a.ts. ${fix}`,
      ],
      'test/fixtures/lint/cycle/b.ts': [
        `2: Import cycle: test/fixtures/lint/cycle/b.ts → test/fixtures/lint/cycle/a.ts → test/fixtures/lint/cycle/b.ts. ${fix}`,
      ],
      'test/fixtures/lint/cycle/c.ts': [],
    });
  });
});
