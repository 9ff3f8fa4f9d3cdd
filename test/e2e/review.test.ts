import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, emulatorRoute, runCli, workspace } from '../helpers/cli.js';

/** What a reviewer sees: the comment's table, the order of the changes, the notes, and `show` of a saved plan. */

let emulator: RunningEmulator;
let env: Record<string, string>;

beforeEach(async () => {
  ({ emulator, env } = await emulatorEnv());
});
afterEach(async () => {
  await emulator.close();
});

const before = `adAccountId: 1234
prune: true
audiences:
  - name: seoul-live
    type: DISPLAY
    ages: [20, 25]
    locations: [I]
  - name: retired
    type: DISPLAY
  - name: cohort-fans
    type: DISPLAY
    cohortTargetings: [{ cohortId: 7001, inclusionType: INCLUDE }]
`;

// seoul-live loses an age band while a LIVE ad group uses it; cohort-fans changes type and
// loses its only cohort; retired, used by a paused ad group, is deleted; new-one is created.
const after = `adAccountId: 1234
prune: true
audiences:
  - name: seoul-live
    type: DISPLAY
    ages: [20]
    locations: [I]
  - name: cohort-fans
    type: MESSAGE
  - name: new-one
    type: DISPLAY
`;

/** The account of `before`, applied, with seoul-live used by ad group 101 (LIVE) and retired by 102 (PAUSED). */
async function reviewedAccount(): Promise<string> {
  const cwd = await workspace({ 'audiences.yaml': before });
  expect((await runCli(['apply', '--auto-approve'], { cwd, env })).code).toBe(0);
  const ids = await audienceIds();
  await emulatorRoute(emulator, 'POST', '/_emulator/links', {
    adAccountId: 1234,
    audienceId: ids.get('seoul-live'),
    adGroupId: 101,
  });
  await emulatorRoute(emulator, 'POST', '/_emulator/links', {
    adAccountId: 1234,
    audienceId: ids.get('retired'),
    adGroupId: 102,
  });
  await writeFile(join(cwd, 'audiences.yaml'), after);
  return cwd;
}

async function audienceIds(): Promise<Map<string, number>> {
  const response = await fetch(`${emulator.url}/openapi/v4/targetings/audiences`, {
    headers: { authorization: `Bearer ${emulator.accessToken}`, adAccountId: '1234' },
  });
  const { content } = (await response.json()) as { content: Array<{ id: number; name: string }> };
  return new Map(content.map((audience) => [audience.name, audience.id]));
}

/** The table rows of a comment, each as its cells. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

/** The lines of a comment outside its folded `diff` block: what the Markdown renders. */
function renderedLines(markdown: string): string[] {
  const lines = markdown.split('\n');
  const open = lines.findIndex((line) => /^`{3,}diff$/.test(line));
  const close = lines.findIndex((line, index) => index > open && /^`{3,}$/.test(line));
  return open < 0 ? lines : [...lines.slice(0, open), ...lines.slice(close + 1)];
}

describe('a comment a reviewer reads in ten seconds', () => {
  it('names the fields of each change, marks LIVE and risky edits, and lists the changes in the text plan’s order', async () => {
    const cwd = await reviewedAccount();
    const markdown = await runCli(['plan', '--format', 'markdown'], { cwd, env });
    expect(markdown.code).toBe(0);
    const rows = tableRows(markdown.stdout);
    expect(rows[0]).toEqual(['`-`', expect.stringMatching(/^unlink ad group 102 from audience "retired"/), '', '']);
    expect(rows[1]).toEqual([
      '`-`',
      expect.stringMatching(/^delete audience "retired"/),
      '',
      ':warning: **deletes an audience in use**',
    ]);
    const row = (title: string): string[] | undefined => rows.find((cells) => cells[1]?.startsWith(title));
    expect(row('update audience "seoul-live"')?.slice(2)).toEqual([
      'ages',
      '**LIVE** · :warning: **narrows an audience in use** · narrows ages',
    ]);
    expect(row('update audience "cohort-fans"')?.slice(2)).toEqual([
      'type, cohortTargetings',
      ':warning: **type change, empties cohortTargetings**',
    ]);
    expect(row('create audience "new-one"')?.slice(2)).toEqual(['', '']);

    const text = await runCli(['plan'], { cwd, env });
    expect(text.stdout).toMatch(
      /~ update audience "seoul-live" \(id \d+\) \[LIVE; risk: narrows an audience in use; narrows ages\]\n/,
    );
    expect(text.stdout).toMatch(/- delete audience "retired" \(id \d+\) \[risk: deletes an audience in use\]\n/);
    const textTitles = text.stdout
      .split('\n')
      .flatMap((line) => /^ {2}[-+~] (.*?)(?: \[[^\]]*\])?$/.exec(line)?.slice(1, 2) ?? []);
    expect(textTitles).toEqual(rows.map((cells) => cells[1]));
  });

  it('show --format markdown of a saved plan prints the comment the plan printed, byte for byte', async () => {
    const cwd = await reviewedAccount();
    const planned = await runCli(
      ['plan', 'audiences.yaml', '--format', 'markdown', '--commit', '0123abc', '--out', 'plan.json'],
      { cwd, env },
    );
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('Planned at commit 0123abc.');
    // No service is needed to show a saved plan.
    const shown = await runCli(['show', 'plan.json', '--format', 'markdown'], { cwd, env: {} });
    expect(shown).toEqual({ code: 0, stdout: planned.stdout, stderr: '' });
  });

  it('says LINK_MISSING once per plan, as a short list of the audiences and their ad groups', async () => {
    const file = `adAccountId: 1234
audiences:
  - { name: banner, type: DISPLAY, adGroups: [101, 102] }
  - { name: boards, type: DISPLAY, adGroups: [103] }
`;
    const cwd = await workspace({ 'audiences.yaml': file });
    const text = await runCli(['plan'], { cwd, env });
    expect(text.stdout.match(/warning\[LINK_MISSING\]/g)).toHaveLength(1);
    expect(text.stdout).toContain(
      'warning[LINK_MISSING]: 2 audiences declare ad groups that do not use them: "banner" (ad groups 101, 102), "boards" (ad group 103)',
    );
    const json = JSON.parse((await runCli(['plan', '--format', 'json'], { cwd, env })).stdout) as Array<{
      warnings: Array<{ code: string }>;
    }>;
    expect(json[0]?.warnings.filter((warning) => warning.code === 'LINK_MISSING')).toHaveLength(1);
  });
});

describe('what only the service checks', () => {
  const file = `adAccountId: 1234
audiences:
  - name: districts
    type: DISPLAY
    depth2Locations: [I99]
    trackerTargetings:
      - { trackId: trk-web, eventCode: purchase, retentionDays: 30, inclusionType: INCLUDE }
`;

  it('is listed in a note of every form of the plan, and a value the note names can still fail at apply', async () => {
    const cwd = await workspace({ 'audiences.yaml': file });
    const text = await runCli(['plan'], { cwd, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      [
        'note: only the service can check these values (when the plan is applied), so this plan does not promise them:',
        '  district codes: I99 (audience "districts")',
        '  member ids: trackId=trk-web (audience "districts")',
        '  event codes: purchase (audience "districts")',
      ].join('\n'),
    );
    const markdown = await runCli(['plan', '--format', 'markdown'], { cwd, env });
    expect(markdown.stdout).toContain(':information_source: **Note:** only the service can check these values');
    expect(markdown.stdout).toContain('- district codes: I99 (audience "districts")');
    const json = JSON.parse((await runCli(['plan', '--format', 'json'], { cwd, env })).stdout) as Array<{
      serviceChecks?: unknown;
    }>;
    expect(json[0]?.serviceChecks).toEqual([
      { name: 'districts', field: 'depth2Locations', what: 'districtCode', values: ['I99'] },
      { name: 'districts', field: 'trackerTargetings', what: 'memberId', values: ['trackId=trk-web'] },
      { name: 'districts', field: 'trackerTargetings', what: 'eventCode', values: ['purchase'] },
    ]);
    // The plan was green; the service has no district I99.
    const applied = await runCli(['apply', '--auto-approve'], { cwd, env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toMatch(/FAILED +create audience "districts"/);
  });

  it('validate does not send a code to a list it cannot vouch for', async () => {
    const cwd = await workspace({
      'audiences.yaml': 'adAccountId: 1234\naudiences:\n  - { name: misplaced, type: DISPLAY, locations: [I99] }\n',
    });
    const result = await runCli(['validate'], { cwd, env });
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('"I99" is not a province code');
    expect(result.stdout + result.stderr).toContain(
      'hint: I99 has the form of a district code, which depth2Locations takes; whether that district exists only the service can tell',
    );
    expect(result.stdout + result.stderr).not.toContain('list it under');
  });
});

describe('names in the comment', () => {
  it('render inert in every Markdown form: no URL, reference or math is made of a name', async () => {
    const name = 'see https://evil.example/x www.evil.example GH-12 !7 ~urgent %sprint $$x^2$$ $y$ deadbeef12 :x:';
    const cwd = await workspace({
      'audiences.yaml': `adAccountId: 1234\naudiences:\n  - { name: ${JSON.stringify(name)}, type: DISPLAY, adGroups: [101] }\n`,
    });
    const planned = await runCli(['plan', '--format', 'markdown', '--out', 'plan.json'], { cwd, env });
    expect(planned.code).toBe(0);
    const shown = await runCli(['show', 'plan.json', '--format', 'markdown'], { cwd, env: {} });
    for (const comment of [planned.stdout, shown.stdout]) {
      const rendered = renderedLines(comment).filter((line) => line.includes('evil'));
      // The table row and the LINK_MISSING warning both name the audience.
      expect(rendered).toHaveLength(2);
      for (const line of rendered) {
        expect(line).not.toMatch(/https?:\/\/|www\.|GH-\d|[!~%$]|deadbeef|:x:/i);
        expect(line).toContain(
          'https&#58;//evil.example/x www&#46;evil.example GH&#45;12 &#33;7 &#126;urgent &#37;sprint &#36;&#36;x^2&#36;&#36;',
        );
      }
    }
  });
});
