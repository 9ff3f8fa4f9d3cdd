import type { AudienceClient } from '../api/audiences.js';
import type { ImageClient } from '../api/imagegen.js';
import type { ApplyServices, ListedAfterWrites } from '../apply/kind.js';
import { applyPlan, verifyApplied } from '../apply/applier.js';
import { causeOf } from '../apply/results.js';
import type { AppliedAccount, ChangeResult, Plan } from '../plan/index.js';
import { OPERATION_KINDS } from './kinds/index.js';
import type { BusinessLookup } from './kinds/kind.js';
import { planFiles } from './plan.js';
import { takeApplyLock } from './apply-lock.js';
import { checkPlanIsFresh } from './stale.js';

/**
 * How the apply use case talks to the person running it: every step is data (plans, results)
 * that the view renders (src/cli/apply-view.ts renders text with src/render/).
 */
export interface ApplyView {
  /** The plans made from the files, shown before asking. */
  showPlans(plans: Plan[]): void;
  /** Saved plans with nothing to change. */
  showNoChanges(plans: Plan[]): void;
  /** Asks for approval; false when it is refused (and then nothing is changed). */
  confirm(): Promise<boolean>;
  /** One change finished. */
  progress(result: ChangeResult): void;
  /** Every account applied, at the end. */
  finished(applied: AppliedAccount[], fromSavedPlan: boolean): void;
}

/** What applying needs of the outside world. */
export interface ApplyDeps {
  view: ApplyView;
  cwd: string;
  client: (adAccountId: number) => AudienceClient;
  /** The business lookup, for files that declare `business:` (and saved plans made from them). */
  business?: (adAccountId: number) => BusinessLookup;
  /** The image-generation client, for plans that generate images. */
  images?: () => ImageClient;
  /** Requests in flight at once (image generations are bounded further). */
  concurrency?: number;
  /** Called as the first change is about to start: from then on an interrupt aborts the signal (see src/cli/interrupts.ts) until `release`. */
  interruptible?: () => { signal: AbortSignal; release(): void };
}

export interface ApplyRequest {
  savedPlan: string | undefined;
  files: string[];
  autoApprove: boolean;
  allowMassDelete: boolean;
}

/**
 * The apply use case. A saved plan is checked for staleness and applied (saving it was the
 * approval). Otherwise the files are planned, the plan shown, and applied after approval or
 * with --auto-approve. Returns the exit code: 0 when everything was done and checked. One
 * apply at a time per working folder (see apply-lock.ts).
 */
export async function runApply(request: ApplyRequest, deps: ApplyDeps): Promise<number> {
  const release = await takeApplyLock(deps.cwd);
  try {
    return await planAndApply(request, deps);
  } finally {
    await release();
  }
}

/** The apply itself, under the folder's apply lock. */
async function planAndApply(request: ApplyRequest, deps: ApplyDeps): Promise<number> {
  const { view } = deps;
  const plans = request.savedPlan ? await freshSavedPlans(request.savedPlan, deps) : await plannedFromFiles(request, deps);
  if (!plans) return 1;
  if (plans.every((plan) => plan.changes.length === 0)) {
    if (request.savedPlan) view.showNoChanges(plans);
    return 0;
  }
  // Every account's services are checked before anything is changed: a missing setting cannot stop an apply halfway.
  const services = plans.map((plan) => servicesFor(plan, deps));
  if (!request.savedPlan && !request.autoApprove && !(await view.confirm())) return 1;

  const interrupts = deps.interruptible?.() ?? { signal: new AbortController().signal, release: () => undefined };
  const applied: AppliedAccount[] = [];
  try {
    for (const [index, plan] of plans.entries()) {
      if (plan.changes.length > 0) applied.push(await applyAndVerify(plan, services[index] as ApplyServices, (result) => view.progress(result), interrupts.signal));
    }
  } finally {
    interrupts.release();
  }
  view.finished(applied, request.savedPlan !== undefined);
  if (interrupts.signal.aborted) return INTERRUPTED_EXIT_CODE;
  return applied.every(
    (account) => account.result.summary.failed + account.result.summary.unknown + account.result.summary.skipped === 0 && account.remaining.length === 0 && account.unverified === null,
  )
    ? 0
    : 1;
}

/** The exit code of a command stopped by SIGINT, as shells report it (128 + 2). */
const INTERRUPTED_EXIT_CODE = 130;

/** Saved plans, each refused when the account (or an image file) changed since it was made. */
async function freshSavedPlans(file: string, deps: ApplyDeps): Promise<Plan[]> {
  // The code of saved plans (their schema's validator among it, 12 ms of a start) only for a saved plan.
  const { readSavedPlans } = await import('./saved-plan.js');
  const plans = await readSavedPlans(file, deps.cwd);
  for (const plan of plans) await checkPlanIsFresh(plan, deps.client(plan.adAccountId), { cwd: deps.cwd, business: plan.business ? deps.business?.(plan.adAccountId) : undefined });
  return plans;
}

/** The files planned and shown; nothing (exit 1) when a plan has errors. */
async function plannedFromFiles(request: ApplyRequest, deps: ApplyDeps): Promise<Plan[] | undefined> {
  const planned = await planFiles(request.files, { allowMassDelete: request.allowMassDelete }, { cwd: deps.cwd, reader: deps.client, business: deps.business });
  const plans = planned.map((account) => account.plan);
  deps.view.showPlans(plans);
  return plans.some((plan) => plan.errors.length > 0) ? undefined : plans;
}

/** The audience API, and what each kind's changes in the plan need besides. */
function servicesFor(plan: Plan, deps: ApplyDeps): ApplyServices {
  return Object.assign({ audiences: deps.client(plan.adAccountId) }, ...OPERATION_KINDS.map((kind) => kind.applyServices?.(plan, deps) ?? {}));
}

/**
 * Applies one plan, then checks that every change it made is as planned and reports what
 * still differs. A failed check must not lose what was done: it is reported instead. Once
 * `signal` is aborted, no change starts and nothing is checked.
 */
export async function applyAndVerify(plan: Plan, services: ApplyServices, report: (result: ChangeResult) => void, signal: AbortSignal = new AbortController().signal): Promise<AppliedAccount> {
  const listed: ListedAfterWrites = { ids: undefined };
  const result = await applyPlan(plan, { ...services, listed }, report, signal);
  // Interrupted, the person wants out: nothing more is asked of the service. The next plan shows what is left.
  if (signal.aborted) return { plan, result, remaining: [], unverified: null, interrupted: true };
  try {
    return { plan, result, remaining: await verifyApplied(plan, result, services.audiences, listed), unverified: null, interrupted: false };
  } catch (error) {
    return { plan, result, remaining: [], unverified: causeOf(error), interrupted: false };
  }
}
