import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { AudienceClient } from '../api/audiences.js';
import { startInTurns } from '../api/in-turns.js';
import type { ImageClient } from '../api/imagegen.js';
import { applyPlan } from '../apply/applier.js';
import type { ApplyResult, ChangeResult } from '../apply/types.js';
import { AppError, isAppError } from '../errors.js';
import type { AudienceDefinition, LiveAudience, LiveAudienceSummary } from '../model/index.js';
import { diffDefinition, linksToRecheck, staleReasons, type AudienceUpdate, type Plan } from '../plan/index.js';
import { noChangesText, type Style } from '../render/index.js';
import { businessStaleReasons } from './company.js';
import { applyPlanImages, IMAGE_CONCURRENCY, imageClient, imageStaleReasons, unavailableImages, withImageResults } from './images.js';
import { planFiles, renderPlans, type BusinessLookup } from './plan.js';
import { Plan as validatePlan } from './generated/plan-validator.js';

/** What applying needs of the outside world (the CLI's Io fits it). */
export interface ApplyDeps {
  io: {
    stdout: (text: string) => void;
    stderr: (text: string) => void;
    stdinIsTTY: boolean;
    readLine: () => Promise<string | null>;
    cwd: string;
  };
  style: Style;
  client: (adAccountId: number) => AudienceClient;
  /** The business lookup, for files that declare `business:` (and saved plans made from them). */
  business?: (adAccountId: number) => BusinessLookup;
  /** The image-generation client, for plans that generate images. */
  images?: () => ImageClient;
  /** Requests in flight at once (image generations are bounded further). */
  concurrency?: number;
}

export interface ApplyRequest {
  savedPlan: string | undefined;
  files: string[];
  autoApprove: boolean;
  allowMassDelete: boolean;
}

/**
 * The apply use case. A saved plan is checked for staleness and applied (saving it was the
 * approval). Otherwise the files are planned, the plan shown, and applied after a `yes` on a
 * terminal or with --auto-approve. Progress goes to stderr, one line per change; the result
 * ends with what was done and what was not. Returns the exit code.
 */
export async function runApply(request: ApplyRequest, deps: ApplyDeps): Promise<number> {
  const { io } = deps;
  let plans: Plan[];
  if (request.savedPlan) {
    plans = await readSavedPlans(request.savedPlan, io.cwd);
    for (const plan of plans) await checkPlanIsFresh(plan, deps.client(plan.adAccountId), { cwd: io.cwd, business: deps.business?.(plan.adAccountId) });
    if (plans.every((plan) => plan.changes.length === 0)) {
      io.stdout(plans.map((plan) => `${noChangesText(plan)}\n`).join(''));
      return 0;
    }
    checkImageSettings(plans, deps);
  } else {
    plans = (await planFiles(request.files, { allowMassDelete: request.allowMassDelete }, { cwd: io.cwd, reader: deps.client, business: deps.business })).map((account) => account.plan);
    io.stdout(renderPlans(plans, 'text', deps.style));
    if (plans.some((plan) => plan.errors.length > 0)) return 1;
    if (plans.every((plan) => plan.changes.length === 0)) return 0;
    checkImageSettings(plans, deps);
    if (!request.autoApprove && !(await confirm(io))) return 1;
  }

  const applied: AppliedAccount[] = [];
  for (const plan of plans) {
    if (plan.changes.length === 0) continue;
    const images = (imagePlan: Plan, report: (result: ChangeResult) => void) => applyPlanImages(imagePlan, imageClient(deps), io.cwd, deps.concurrency ?? IMAGE_CONCURRENCY, report);
    applied.push(await applyAndVerify(plan, deps.client(plan.adAccountId), (result) => io.stderr(`${progressLine(result, deps.style)}\n`), images));
  }
  io.stdout(closingSummary(applied, request.savedPlan !== undefined));
  return applied.every((account) => account.result.summary.failed + account.result.summary.skipped === 0 && account.remaining.length === 0 && account.unverified === null) ? 0 : 1;
}

/**
 * Images are generated after the audiences are written: the image service's address and key
 * are checked before anything is changed, so a missing one cannot stop an apply halfway.
 */
function checkImageSettings(plans: Plan[], deps: ApplyDeps): void {
  if (plans.some((plan) => plan.changes.some((change) => change.kind === 'image' && change.action === 'generate'))) imageClient(deps)();
}

async function confirm(io: ApplyDeps['io']): Promise<boolean> {
  if (!io.stdinIsTTY) {
    throw new AppError({
      code: 'NOT_APPROVED',
      source: 'user',
      summary: 'refusing to apply without a terminal to confirm on',
      hint: 'pass --auto-approve (in a pipeline), or apply a plan saved with `audiences plan --out`',
    });
  }
  io.stdout('\nDo you want to apply these changes? Only `yes` is accepted.\n  Enter a value: ');
  const answer = await io.readLine();
  if (answer?.trim() === 'yes') return true;
  io.stdout('\nApply cancelled: nothing was changed.\n');
  return false;
}

const VERB: Record<ChangeResult['action'], string> = { create: 'create', update: 'update', delete: 'delete', unlink: 'unlink', generate: 'generate', remove: 'remove' };

function describeChange(result: ChangeResult): string {
  if (result.action === 'generate' || result.action === 'remove') return `${VERB[result.action]} image "${result.name}"`;
  if (result.action === 'unlink') return `unlink ad group ${result.adGroupId} from audience "${result.name}" (id ${result.id})`;
  return `${VERB[result.action]} audience "${result.name}"${result.id === null ? '' : ` (id ${result.id})`}`;
}

export function progressLine(result: ChangeResult, style: Style): string {
  if (result.status === 'ok') return `${style.add('ok')}      ${describeChange(result)}`;
  if (result.status === 'skipped') return `${style.warn('skipped')} ${describeChange(result)}: ${result.cause ?? ''}`;
  return `${style.error('FAILED')}  ${describeChange(result)}: ${result.cause ?? ''}`;
}

function closingSummary(applied: AppliedAccount[], fromSavedPlan: boolean): string {
  const lines: string[] = [''];
  for (const { plan, result, remaining, unverified } of applied) {
    const { ok, failed, skipped } = result.summary;
    lines.push(`Apply ${failed + skipped === 0 ? 'complete' : 'incomplete'} for ad account ${plan.adAccountId}: ${ok} done, ${failed} failed, ${skipped} skipped.`);
    const notDone = result.results.filter((change) => change.status !== 'ok');
    if (notDone.length > 0) {
      lines.push('Not done:');
      for (const change of notDone) lines.push(`  ${describeChange(change)}: ${change.status}, ${change.cause ?? ''}`);
      lines.push(
        fromSavedPlan
          ? 'Fix the cause, then run `audiences plan` again: the saved plan is now stale, a new plan finishes the job.'
          : 'Fix the cause and run `audiences apply` again: it plans anew and finishes the job.',
      );
    }
    if (remaining.length > 0) {
      lines.push('After applying, these still differ (please report this):');
      for (const line of remaining) lines.push(`  ${line}`);
    }
    if (unverified !== null) {
      lines.push(`The account could not be read back to check the result: ${unverified}.`, 'Run `audiences plan` to see whether anything is left to do.');
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface AppliedAccount {
  plan: Plan;
  result: ApplyResult;
  /** Differences that remain after applying (there should be none). */
  remaining: string[];
  /** Why the account could not be read back after applying (the changes' results still stand), or null. */
  unverified: string | null;
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
    throw invalidPlan(file, (error as Error).message);
  }
  const plans = Array.isArray(data) ? data : [data];
  for (const plan of plans) {
    if (!validatePlan(plan)) throw invalidPlan(file, (validatePlan.errors ?? []).slice(0, 3).map((error) => `${error.instancePath || '/'} ${error.message}`).join('; '));
  }
  const withErrors = (plans as Plan[]).find((plan) => plan.errors.length > 0);
  if (withErrors) throw new AppError({ code: 'PLAN_HAS_ERRORS', source: 'user', summary: `the saved plan ${file} has errors and cannot be applied`, hint: 'fix the errors and plan again' });
  return plans as Plan[];
}

/**
 * Refuses a saved plan made from a picture of the account that is no longer true: an
 * audience it touches changed, a name it creates is taken, an audience appeared under prune.
 */
export async function checkPlanIsFresh(plan: Plan, client: AudienceClient, local?: { cwd: string; business?: BusinessLookup | undefined }): Promise<void> {
  const audiences = await client.list();
  const present = new Set(audiences.map((summary) => summary.id));
  const ids = linksToRecheck(plan).filter((id) => present.has(id));
  const links = await startInTurns(ids, (id) => client.adGroups(id));
  const adGroupIds = Object.fromEntries(ids.map((id, index) => [String(id), (links[index] ?? []).map((link) => link.adGroupId)]));
  const reasons = [
    ...staleReasons(plan, { audiences, adGroupIds }),
    ...(await updatedSinceRead(plan, audiences, client)),
    ...(local ? [...(await businessStaleReasons(plan, local.business)), ...(await imageStaleReasons(plan, local.cwd))] : []),
  ];
  if (reasons.length > 0) {
    throw new AppError({
      code: 'PLAN_STALE',
      source: 'user',
      summary: `the saved plan is stale: ad account ${plan.adAccountId} changed since it was made`,
      detail: reasons.join('\n'),
      hint: 'nothing was changed; run `audiences plan` again and review the new plan',
    });
  }
}

/**
 * The service dates changes to the second, so a change made in the same second the plan read
 * an audience keeps its lastModifiedDate. An update sends the whole definition and would
 * silently undo such a change: each audience the plan updates is read again and compared
 * with the definition the plan was made from.
 */
async function updatedSinceRead(plan: Plan, audiences: LiveAudienceSummary[], client: AudienceClient): Promise<string[]> {
  const readAt = new Map(plan.fingerprint.audiences.map((entry) => [entry.id, entry.lastModifiedDate]));
  const sameDate = new Map(audiences.filter((summary) => readAt.get(summary.id) === summary.lastModifiedDate).map((summary) => [summary.id, summary]));
  const updates = plan.changes.filter((change): change is AudienceUpdate => change.action === 'update' && sameDate.has(change.id));
  const reads = await startInTurns(updates, (change) => client.read(change.id));
  return updates.flatMap((change, index) => {
    const fields = diffDefinition(change.before, (reads[index] as LiveAudience).definition).map((field) => field.field);
    return fields.length === 0 ? [] : [`audience "${change.name}" (id ${change.id}) was modified since the plan read it (${fields.join(', ')} changed)`];
  });
}

/**
 * Applies one plan, then checks that every audience it touched is as planned, and reports
 * what still differs: each created or updated audience as the service answered its write,
 * each delete and unlink against the account listed again. Image changes go to `images` after
 * the audiences (the two never depend on each other).
 */
export async function applyAndVerify(
  plan: Plan,
  client: AudienceClient,
  report: (result: ChangeResult) => void,
  images: (plan: Plan, report: (result: ChangeResult) => void) => Promise<ChangeResult[]> = unavailableImages,
): Promise<AppliedAccount> {
  const audiences = { ...plan, changes: plan.changes.filter((change) => change.kind !== 'image') };
  // The service answers a create or update with the audience as it stored it: reading each one
  // again would only double the requests of an apply. Each answer is compared with what was
  // sent as it arrives, while the other writes are still in flight.
  const differences = new Map<number, string[]>();
  const check = (sent: AudienceDefinition, live: LiveAudience): LiveAudience => {
    differences.set(live.id, differingFields(sent, live));
    return live;
  };
  const recording: AudienceClient = {
    ...client,
    create: async (definition, existing) => check(definition, await client.create(definition, existing)),
    update: async (id, definition) => check(definition, await client.update(id, definition)),
  };
  const result = await applyPlan(audiences, recording, report);
  // A failed check must not lose what was done (nor stop the images): it is reported instead.
  let remaining: string[] = [];
  let unverified: string | null = null;
  try {
    remaining = await verifyApplied(audiences, result, client, differences);
  } catch (error) {
    unverified = isAppError(error) ? error.summary : error instanceof Error ? error.message : String(error);
  }
  return { plan, result: withImageResults(result, await images(plan, report)), remaining, unverified };
}

/** The fields of `sent` that the audience the service holds does not have as sent. */
function differingFields(sent: AudienceDefinition, live: LiveAudience): string[] {
  return diffDefinition(sent, live.definition).map((field) => field.field);
}

/**
 * What still differs after applying: every audience written is in the account with the
 * definition sent (`differences`, from the service's answers, by id), every deleted one is
 * gone, every unlinked ad group no longer uses its audience.
 */
async function verifyApplied(plan: Plan, result: ApplyResult, client: AudienceClient, differences: ReadonlyMap<number, string[]>): Promise<string[]> {
  const done = plan.changes.flatMap((change, index) => (result.results[index]?.status === 'ok' ? [{ change, createdId: result.results[index]?.id }] : []));
  if (done.length === 0) return [];
  const present = new Set((await client.list()).map((summary) => summary.id));
  const checks = done.map(async ({ change, createdId }): Promise<string[]> => {
    switch (change.action) {
      case 'create':
      case 'update': {
        const id = change.action === 'create' ? createdId : change.id;
        if (id === null || id === undefined || !present.has(id)) return [`audience "${change.name}" is missing after its ${change.action}`];
        const fields = differences.get(id) ?? differingFields(change.after, await client.read(id));
        return fields.map((field) => `audience "${change.name}" (id ${id}): ${field} still differs`);
      }
      case 'delete':
        return present.has(change.id) ? [`audience "${change.name}" (id ${change.id}) still exists after its delete`] : [];
      case 'generate':
      case 'remove':
        return [];
      case 'unlink': {
        if (!present.has(change.id)) return [];
        const links = await client.adGroups(change.id);
        return links.some((link) => link.adGroupId === change.adGroupId) ? [`ad group ${change.adGroupId} still uses audience "${change.name}" (id ${change.id})`] : [];
      }
    }
  });
  return (await Promise.all(checks)).flat();
}

function invalidPlan(file: string, reason: string): AppError {
  return new AppError({ code: 'PLAN_INVALID', source: 'user', summary: `${file} is not a saved plan: ${reason}`, hint: 'save a plan with `audiences plan --out FILE`; do not edit it by hand' });
}
