import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APPLY_OUTCOMES, COMMAND_ERRORS, PLAN_PROBLEMS, type CodeDoc, type ErrorSource } from './error-codes.js';
import { AppError } from './errors.js';
import type { Plan } from './plan/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(root, 'docs/errors.md');

/** Where the hand-written preamble of docs/errors.md ends and the rendered tables begin. */
const MARKER =
  '<!-- The tables below are rendered from src/error-codes.ts: `npx vitest run src/error-codes.test.ts -u` rewrites them. -->\n';

const WHOSE: Record<ErrorSource, string> = { user: 'yours', remote: "the service's", internal: 'ours (a bug)' };

/** A table cell: the list's Markdown as it is, a `|` escaped so that it stays in its cell. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function table(header: string[], rows: string[][]): string {
  const lines = [header, header.map(() => '---'), ...rows].map((row) => `| ${row.map(cell).join(' | ')} |`);
  return `${lines.join('\n')}\n`;
}

const byCode = <T>([a]: [string, T], [b]: [string, T]): number => (a < b ? -1 : a > b ? 1 : 0);

/** The tables of docs/errors.md: one per group, each row a code, whose or which it is, what it means and what to do. */
function renderTables(): string {
  const commands = Object.entries(COMMAND_ERRORS)
    .sort(byCode)
    .map(([code, doc]) => [`\`${code}\``, doc.source.map((source) => WHOSE[source]).join(', '), doc.means, doc.todo]);
  const problems = Object.entries(PLAN_PROBLEMS)
    .sort((a, b) => (a[1].severity === b[1].severity ? byCode(a, b) : a[1].severity === 'error' ? -1 : 1))
    .map(([code, doc]) => [`\`${code}\``, doc.severity, doc.means, doc.todo]);
  const outcomes = Object.entries(APPLY_OUTCOMES).map(([name, doc]) => [name, doc.shown, doc.means, doc.todo]);
  return [
    '## Command errors\n',
    'An error that stops a command, printed `error[CODE]: summary`, with whose problem it is.\n',
    table(['Code', 'Whose', 'What it means', 'What to do'], commands),
    '## Plan warnings and errors\n',
    'Printed under the plan as `error[CODE]: …` or `warning[CODE]: …` with a hint, and kept in its JSON (`errors`, `warnings`). A plan with an error is never saved or applied; a warning is for the reviewer.\n',
    table(['Code', 'Kind', 'What it means', 'What to do'], problems),
    '## Apply outcomes\n',
    "Every change of an apply ends in one of these outcomes, shown on its progress line and counted apart in the summary (they add up to the plan's changes).\n",
    table(['Outcome', 'Progress line', 'What it means', 'What to do'], outcomes),
  ].join('\n');
}

describe('the list of codes', () => {
  it('renders docs/errors.md: its preamble as written, then a table per group (rewrite with -u after changing the list)', async () => {
    const current = readFileSync(DOC, 'utf8');
    const at = current.indexOf(MARKER);
    expect(at, `docs/errors.md has lost the line that starts its tables: ${MARKER}`).toBeGreaterThan(0);
    await expect(current.slice(0, at) + MARKER + '\n' + renderTables()).toMatchFileSnapshot(DOC);
  });

  it('says each thing in sentences of one line, as a table cell holds them', () => {
    const docs: CodeDoc[] = [
      ...Object.values(COMMAND_ERRORS),
      ...Object.values(PLAN_PROBLEMS),
      ...Object.values(APPLY_OUTCOMES),
    ];
    for (const text of docs.flatMap((doc) => [doc.means, doc.todo])) expect(text).toMatch(/^[A-Z`][^\n]*\.$/);
  });

  it('lists only codes the tool raises: each command error is named where it is raised', () => {
    const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter(
        (file) =>
          file.endsWith('.ts') &&
          !file.endsWith('.test.ts') &&
          file !== 'error-codes.ts' &&
          !file.includes('generated'),
      )
      .map((file) => readFileSync(join(root, 'src', file), 'utf8'))
      .join('\n');
    const unraised = Object.keys(COMMAND_ERRORS).filter((code) => !new RegExp(`['\\[]${code}['\\]]`).test(sources));
    expect(unraised).toEqual([]);
  });

  it('gives each plan problem the kind the planner gives it, in every golden plan', () => {
    const golden = join(root, 'test/golden');
    const seen = new Set<string>();
    for (const scenario of readdirSync(golden, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const plan = JSON.parse(readFileSync(join(golden, scenario.name, 'plan.json'), 'utf8')) as Plan;
      for (const [severity, problems] of [['error', plan.errors] as const, ['warning', plan.warnings] as const]) {
        for (const problem of problems) {
          expect(PLAN_PROBLEMS[problem.code].severity, `${scenario.name}: ${problem.code}`).toBe(severity);
          seen.add(problem.code);
        }
      }
    }
    // The golden plans hold most codes: the check means something.
    expect(seen.size).toBeGreaterThanOrEqual(15);
  });

  it('types the code and the source of an AppError by the list', () => {
    // @ts-expect-error an unlisted code does not compile
    expect(new AppError({ code: 'NOT_A_CODE', source: 'user', summary: 's' }).code).toBe('NOT_A_CODE');
    // @ts-expect-error nor a source the list does not give the code
    expect(new AppError({ code: 'PLAN_STALE', source: 'remote', summary: 's' }).source).toBe('remote');
    expect(new AppError({ code: 'NO_SERVICE', source: 'internal', summary: 's' }).source).toBe('internal');
  });
});
