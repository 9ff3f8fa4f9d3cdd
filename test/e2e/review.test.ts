import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runCli, workspace } from '../helpers/cli.js';

/** What a reviewer sees: the comment's table, the order of the changes, the notes, and `show` of a saved plan. */

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

/** The lines of a comment outside its folded `diff` block: what the Markdown renders. */
function renderedLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  const open = lines.findIndex((line) => /^`{3,}diff$/.test(line));
  const close = lines.findIndex((line, index) => index > open && /^`{3,}$/.test(line));
  return open < 0 ? lines : [...lines.slice(0, open), ...lines.slice(close + 1)];
}

describe('names in the comment', () => {
  it('render inert in every Markdown form: no URL, reference or math is made of a name', async () => {
    const name = 'see https://evil.example/x www.evil.example GH-12 !7 ~urgent %sprint $$x^2$$ $y$ deadbeef12 :x:';
    const cwd = await workspace({ 'audiences.yaml': `adAccountId: 1234\naudiences:\n  - { name: ${JSON.stringify(name)}, type: DISPLAY, adGroups: [101] }\n` });
    const planned = await runCli(['plan', '--format', 'markdown', '--out', 'plan.json'], { cwd, env });
    expect(planned.code).toBe(0);
    const shown = await runCli(['show', 'plan.json', '--format', 'markdown'], { cwd, env: {} });
    for (const comment of [planned.stdout, shown.stdout]) {
      const rendered = renderedLines(comment).filter((line) => line.includes('evil'));
      // The table row and the LINK_MISSING warning both name the audience.
      expect(rendered).toHaveLength(2);
      for (const line of rendered) {
        expect(line).not.toMatch(/https?:\/\/|www\.|GH-\d|[!~%$]|deadbeef|:x:/i);
        expect(line).toContain('https&#58;//evil.example/x www&#46;evil.example GH&#45;12 &#33;7 &#126;urgent &#37;sprint &#36;&#36;x^2&#36;&#36;');
      }
    }
  });
});
