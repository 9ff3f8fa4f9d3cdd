import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { resolve } from 'node:path';
import { AppError } from '../errors.js';
import type { Plan } from '../plan/index.js';
import { plainStyle, renderPlans } from '../render/index.js';
import { fileWriteError } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import { Plan as validatePlan } from './generated/plan-validator.js';

/**
 * Refuses, before anything is read, to save a plan over a file that is not a saved plan (the
 * desired-state file, say), or over anything but a regular file (a folder, a device such as
 * /dev/null, a FIFO, whose read would hang): `--out` replaces only an earlier plan, or an
 * empty file (one made with mktemp). The target is read only once it is known to be a file.
 */
export async function checkPlanTarget(out: string, cwd: string): Promise<void> {
  const path = resolve(cwd, out);
  let kind: Stats;
  try {
    kind = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw fileWriteError(error, out);
  }
  // A folder fails the read at once, and says so; a device or a FIFO is never opened.
  if (!kind.isFile() && !kind.isDirectory()) {
    throw new AppError({
      code: 'FILE_EXISTS',
      source: 'user',
      summary: `${out} already exists and is not a regular file (a device, a FIFO or a socket)`,
      hint: 'choose another file name: --out writes only a new file, or replaces a plan saved before',
    });
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw fileWriteError(error, out);
  }
  if (text.trim() !== '' && !isSavedPlan(text)) {
    throw new AppError({
      code: 'FILE_EXISTS',
      source: 'user',
      summary: `${out} already exists and is not a saved plan`,
      hint: 'choose another file name: --out replaces only a plan saved before',
    });
  }
}

function isSavedPlan(text: string): boolean {
  try {
    const data: unknown = JSON.parse(text);
    const hasVersion = (value: unknown) => typeof value === 'object' && value !== null && 'formatVersion' in value;
    return Array.isArray(data) ? data.length > 0 && data.every(hasVersion) : hasVersion(data);
  } catch {
    return false;
  }
}

/** Writes a saved plan atomically. A plan never holds a secret: tokens live only in the environment. */
export async function savePlans(plans: Plan[], out: string, cwd: string): Promise<void> {
  await writeFileAtomically(resolve(cwd, out), renderPlans(plans, 'json', plainStyle), out);
}

/** Reads a plan saved by `plan --out`: one plan or an array of them, checked against schemas/plan.schema.json. */
export async function readSavedPlans(file: string, cwd: string): Promise<Plan[]> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AppError({ code: 'PLAN_UNREADABLE', source: 'user', summary: `cannot read the saved plan ${file}: ${(error as Error).message}`, hint: 'save a plan with `audiences plan --out FILE`' });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    if (/^\s*adAccountId\s*:/m.test(text)) {
      throw new AppError({
        code: 'PLAN_INVALID',
        source: 'user',
        summary: `${file} is a desired-state file, not a saved plan`,
        hint: `to plan and apply it, run \`audiences apply -f ${file}\`; to apply exactly a reviewed plan, save it first with \`audiences plan -f ${file} --out plan.json\``,
      });
    }
    throw invalidPlan(file, (error as Error).message);
  }
  const plans = Array.isArray(data) ? data : [data];
  for (const plan of plans) {
    if (!validatePlan(plan))
      throw invalidPlan(
        file,
        (validatePlan.errors ?? [])
          .slice(0, 3)
          .map((error) => `${error.instancePath || '/'} ${error.message}`)
          .join('; '),
      );
  }
  const withErrors = (plans as Plan[]).find((plan) => plan.errors.length > 0);
  if (withErrors) throw new AppError({ code: 'PLAN_HAS_ERRORS', source: 'user', summary: `the saved plan ${file} has errors and cannot be applied`, hint: 'fix the errors and plan again' });
  return plans as Plan[];
}

function invalidPlan(file: string, reason: string): AppError {
  return new AppError({ code: 'PLAN_INVALID', source: 'user', summary: `${file} is not a saved plan: ${reason}`, hint: 'save a plan with `audiences plan --out FILE`; do not edit it by hand' });
}
