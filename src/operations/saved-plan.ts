import { open, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileTooLarge, readUpTo } from '../bounded-read.js';
import { writtenFileKind } from '../config/written-files.js';
import { AppError } from '../errors.js';
import { inconsistencies, upgradeProblem, upgradeSavedPlan, type Plan } from '../plan/index.js';
import { plainStyle, renderPlans, type CommentContext } from '../render/index.js';
import { fileWriteError } from './file-errors.js';
import { writeFileAtomically, writeTarget } from './files.js';
import { Plan as validatePlan } from './generated/plan-validator.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';

/**
 * Refuses, before anything is read, to save a plan over a file that is not a saved plan (the
 * desired-state file, say), or over anything but a regular file (a folder, a device such as
 * /dev/null, a FIFO, whose read would hang): `--out` replaces only an earlier plan, or an
 * empty file (one made with mktemp). The target is read only once it is known to be a file.
 */
export async function checkPlanTarget(out: string, cwd: string): Promise<void> {
  const path = resolve(cwd, out);
  const found = await writeTarget(
    path,
    out,
    'choose another file name: --out writes only a new file, or replaces a plan saved before',
  );
  if (found === 'absent') return;
  // A folder fails the read at once, and says so.
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

/** A saved plan's text without the byte-order mark an editor may have saved it with, which JSON.parse does not take. */
function withoutBom(text: string): string {
  return text.replace(/^\uFEFF/, '');
}

function isSavedPlan(text: string): boolean {
  try {
    const data: unknown = JSON.parse(withoutBom(text));
    const hasVersion = (value: unknown) => typeof value === 'object' && value !== null && 'formatVersion' in value;
    return Array.isArray(data) ? data.length > 0 && data.every(hasVersion) : hasVersion(data);
  } catch {
    return false;
  }
}

/**
 * Writes a saved plan atomically, with what each kind records to find its local files again
 * from wherever it is applied. A plan never holds a secret: tokens live only in the environment.
 */
export async function savePlans(plans: Plan[], out: string, cwd: string): Promise<void> {
  const context = { cwd, planFile: resolve(cwd, out) };
  const saved = plans.map((plan) =>
    OPERATION_KINDS_IN_ORDER.reduce((recorded, kind) => kind.saving?.(recorded, context) ?? recorded, plan),
  );
  await writeFileAtomically(context.planFile, renderPlans(saved, 'json', plainStyle), out);
}

/**
 * The largest saved plan read, in bytes. A saved plan is pretty-printed JSON, and a delete
 * carries the audience's whole definition, its fingerprint and each unlink of its ad groups.
 * The limit is about twice the largest plan of the most audiences a desired-state file
 * declares (see LIMITS in config/validate-config.ts), each deleted with fuller definitions
 * and ad groups (bench/NOTES.md). It bounds what a wrong file costs, not what any file under it costs:
 * JSON of tiny values (`[{},{},…]`) is dearer to parse than a plan.
 */
export const SAVED_PLAN_MAX_BYTES = 128 * 1024 * 1024;

/**
 * Reads a plan saved by `plan --out`: one plan or an array of them (of the current version,
 * or of version 1, read as the same plan of the current one), checked against
 * schemas/plan.schema.json, each account once, and each plan against itself (see inconsistencies).
 */
export async function readSavedPlans(file: string, cwd: string, use: 'apply' | 'show'): Promise<Plan[]> {
  const text = await readSavedPlanText(resolve(cwd, file), file);
  let data: unknown;
  try {
    data = JSON.parse(withoutBom(text));
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
  if (writtenFileKind(data) === 'image lock') {
    throw new AppError({
      code: 'PLAN_INVALID',
      source: 'user',
      summary: `${file} is the image lock (written by the tool), not a saved plan`,
      hint: 'save a plan with `audiences plan --out plan.json` and give that; the lock is read beside the desired-state file',
    });
  }
  const saved: unknown[] = Array.isArray(data) ? data : [data];
  // An old plan is shown as it was saved; applied, only where it recorded all that applying needs.
  const old = use === 'apply' ? saved.map(upgradeProblem).find((problem) => problem !== undefined) : undefined;
  if (old !== undefined) throw invalidPlan(file, old);
  const plans = saved.map(upgradeSavedPlan);
  // `plan --out` always writes a plan per account: an empty array is an emptied or broken artifact, which would apply
  // nothing and succeed.
  if (plans.length === 0) throw invalidPlan(file, 'an empty array, without the plan of any account');
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
  const accounts = new Set<number>();
  for (const plan of plans as Plan[]) {
    if (accounts.has(plan.adAccountId)) throw invalidPlan(file, `ad account ${plan.adAccountId} has two plans in it`);
    accounts.add(plan.adAccountId);
    const problems = inconsistencies(plan);
    if (problems.length > 0)
      throw invalidPlan(
        file,
        `in the plan of ad account ${plan.adAccountId}, ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`,
      );
  }
  const withErrors = (plans as Plan[]).find((plan) => plan.errors.length > 0);
  if (withErrors)
    throw new AppError({
      code: 'PLAN_HAS_ERRORS',
      source: 'user',
      summary: `the saved plan ${file} has errors and cannot be applied`,
      hint: 'fix the errors and plan again',
    });
  return plans as Plan[];
}

/**
 * Where the comment of a saved plan comes from: the files and commit it recorded, so that `show
 * --format markdown` prints the comment `plan --out` printed; the plan file for a plan saved
 * without them (by an earlier version).
 */
export function savedPlanContext(plans: Plan[], file: string): CommentContext {
  const origin = plans[0]?.origin;
  return origin ? { files: origin.files, commit: origin.commit ?? undefined } : { files: [file] };
}

function invalidPlan(file: string, reason: string): AppError {
  return new AppError({
    code: 'PLAN_INVALID',
    source: 'user',
    summary: `${file} is not a saved plan: ${reason}`,
    hint: 'save a plan with `audiences plan --out FILE`; do not edit it by hand',
  });
}

/**
 * The text of a saved plan, refused with FILE_TOO_LARGE past SAVED_PLAN_MAX_BYTES: by its size
 * before it is read, and by a bounded read when its stat does not tell (a pipe such as `<(…)`,
 * /dev/zero) or it grew since.
 */
async function readSavedPlanText(path: string, file: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
    const info = await handle.stat();
    if (info.isFile() && info.size > SAVED_PLAN_MAX_BYTES) throw savedPlanTooLarge(file, info.size);
    const bytes = await readUpTo(handle, SAVED_PLAN_MAX_BYTES);
    if (bytes === undefined) throw savedPlanTooLarge(file);
    return bytes.toString('utf8');
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError({
      code: 'PLAN_UNREADABLE',
      source: 'user',
      summary: `cannot read the saved plan ${file}: ${(error as Error).message}`,
      hint: 'save a plan with `audiences plan --out FILE`',
    });
  } finally {
    await handle?.close();
  }
}

/** The error for a saved plan past SAVED_PLAN_MAX_BYTES. */
function savedPlanTooLarge(file: string, size?: number): AppError {
  return fileTooLarge(
    file,
    SAVED_PLAN_MAX_BYTES,
    'a saved plan',
    'is this the right file? a plan deleting 16,000 audiences takes about 40 MB; save a plan with `audiences plan --out FILE`',
    size,
  );
}
