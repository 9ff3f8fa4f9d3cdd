import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APPLY_OUTCOMES, COMMAND_ERRORS, PLAN_PROBLEMS, type CodeDoc } from './error-codes.js';
import { AppError } from './errors.js';
import type { Plan } from './plan/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the list of codes', () => {
  it('says each thing in sentences of one line, as a table cell holds them', () => {
    const docs: CodeDoc[] = [...Object.values(COMMAND_ERRORS), ...Object.values(PLAN_PROBLEMS), ...Object.values(APPLY_OUTCOMES)];
    for (const text of docs.flatMap((doc) => [doc.means, doc.todo])) expect(text).toMatch(/^[A-Z`][^\n]*\.$/);
  });

  it('lists only codes the tool raises: each command error is named where it is raised', () => {
    const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'error-codes.ts' && !file.includes('generated'))
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
