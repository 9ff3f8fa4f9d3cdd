import { resolve } from 'node:path';
import type { AudienceClient } from '../api/audiences.js';
import type { ApplyProgress, ApplyServices, ListedAfterWrites } from '../apply/kind.js';
import { applyPlan, countOutcomes, verifyApplied } from '../apply/applier.js';
import { causeOf, notStarted, stoppedInFlight, stoppedSettling } from '../apply/results.js';
import { INTERRUPTED_EXIT_CODE } from '../errors.js';
import type { DesiredState } from '../model/index.js';
import type { AppliedAccount, Change, ChangeResult, Plan, PlanScope } from '../plan/index.js';
import { OPERATION_KINDS_IN_ORDER } from './kinds/index.js';
import type { KindServices } from './kinds/kind.js';
import type { AccountReader } from './account-reader.js';
import { planFiles } from './plan.js';
import { checkPlanIsFresh, type CheckedPlan } from './stale.js';

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
  /**
   * One change finished; `adAccountId` names its account when the changes of several accounts are applied at once
   * (their lines interleave), and is undefined for one.
   */
  progress(result: ChangeResult, adAccountId?: number): void;
  /** Every account applied, at the end. */
  finished(applied: AppliedAccount[], fromSavedPlan: boolean): void;
}

/** What applying needs of the outside world. */
export interface ApplyDeps {
  view: ApplyView;
  cwd: string;
  /** The account's client; `requestsPerSecond`, its file's rate, paces its requests (see Services.audiences). */
  client: (adAccountId: number, requestsPerSecond?: number) => AudienceClient;
  /** The services besides the audience API, each opened by the kind whose changes need it. */
  services?: Partial<KindServices>;
  /** Requests in flight at once (image generations are bounded further). */
  concurrency?: number;
  /** How the apply is interrupted (see src/cli/interrupts.ts); by default it is not. */
  interrupts?: ApplyInterrupts;
}

/** How an apply is interrupted (SIGINT or SIGTERM; src/cli/interrupts.ts). */
export interface ApplyInterrupts {
  /** Aborted by the first interrupt once changes are being made: no change starts after it, those in flight finish. */
  readonly signal: AbortSignal;
  /**
   * Before the changes, an interrupt stops the command, but only once `work` has settled (the apply lock being taken,
   * so that it is let go on the way out).
   */
  settleFirst(work: Promise<unknown>): void;
  /**
   * Changes are about to be made. Before this, an interrupt stops the command at once, as
   * nothing was changed; from now on the first lets the changes in flight finish, and a
   * second stops at once, once `stopNow` has said what is known.
   */
  applying(stopNow: () => void): void;
  /** The apply has said its summary: an interrupt from now on says nothing more (one summary per apply). */
  said(): void;
}

export interface ApplyRequest {
  savedPlan: string | undefined;
  files: string[];
  autoApprove: boolean;
  allowMassDelete: boolean;
  /** Plan and apply only within this scope (`--target`, `--kind`, `--exclude`); never with a saved plan. */
  scope?: PlanScope | undefined;
  /** `--requests-per-second`: the plan shown says the least time its apply takes at it. */
  requestsPerSecond?: number | undefined;
}

/** What an apply starts from: saved plans (not yet checked for staleness), or the files read and validated. */
export type ApplyInput = { saved: Plan[] } | { files: Array<{ file: string; desired: DesiredState }> };

/**
 * The apply itself, under the accounts' apply locks (see runApply in run-apply.ts); the files' plans read the accounts
 * through `reader`, which may hand out lists already asked for.
 */
export async function planAndApply(
  input: ApplyInput,
  request: ApplyRequest,
  deps: ApplyDeps,
  interrupts: ApplyInterrupts,
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader = deps.client,
): Promise<number> {
  const { view } = deps;
  const plans =
    'saved' in input
      ? await freshPlans(input.saved, deps, 'saved')
      : await plannedFromFiles(input.files, request, deps, reader);
  if (!plans) return 1;
  if (plans.every((plan) => plan.changes.length === 0)) {
    if (request.savedPlan) view.showNoChanges(plans);
    return 0;
  }
  const changing = plans.filter((plan) => plan.changes.length > 0);
  // Every account's services are checked before anything is changed: a missing setting cannot stop an apply halfway.
  const services = new Map(changing.map((plan) => [plan, servicesFor(plan, deps)]));
  if (!request.savedPlan && !request.autoApprove) {
    if (!(await view.confirm())) return 1;
    // The account may have moved while the plan waited: the approved plan is checked as a saved one, or nothing is done.
    await freshPlans(plans, deps, 'approved');
  }

  const done = new Map<Plan, AppliedAccount>();
  const told = toldSoFar(view);
  interrupts.applying(() =>
    view.finished(
      changing.map((plan) => done.get(plan) ?? told.stoppedAtOnce(plan)),
      request.savedPlan !== undefined,
    ),
  );
  // Each account through its own transport (its own quota): one account's failures or interrupt never change another's.
  const several = changing.length > 1;
  const applied = await Promise.all(
    changing.map(async (plan) => {
      const progress = told.progressOf(several ? plan.adAccountId : undefined);
      const account = await applyAndVerify(plan, services.get(plan) as ApplyServices, progress, interrupts.signal);
      done.set(plan, account);
      return account;
    }),
  );
  view.finished(applied, request.savedPlan !== undefined);
  interrupts.said();
  if (interrupts.signal.aborted) return INTERRUPTED_EXIT_CODE;
  return applied.every(
    (account) =>
      account.result.summary.failed + account.result.summary.unknown + account.result.summary.skipped === 0 &&
      account.remaining.length === 0 &&
      account.unverified === null,
  )
    ? 0
    : 1;
}

/**
 * The apply's progress, shown as it comes and kept, so that an apply stopped at once can say
 * what is known of an account (`stoppedAtOnce`): each change as it finished (a change shown
 * `ok` stays done; one being followed up, a create whose race was being settled, says that a
 * duplicate may be left), unknown when its request had left, not started otherwise.
 */
export function toldSoFar(view: Pick<ApplyView, 'progress'>): {
  /** The progress of the changes of one account (named in its lines when several are applied at once). */
  progressOf(adAccountId: number | undefined): ApplyProgress;
  stoppedAtOnce(plan: Plan): AppliedAccount;
} {
  const started = new Set<Change>();
  const finished = new Map<Change, ChangeResult>();
  const following = new Set<Change>();
  const whenStopped = (change: Change): ChangeResult => {
    const result = finished.get(change);
    if (result === undefined) return started.has(change) ? stoppedInFlight(change) : notStarted(change);
    return result.status === 'ok' && following.has(change) ? stoppedSettling(result) : result;
  };
  return {
    progressOf: (adAccountId) => ({
      started: (change) => started.add(change),
      finished: (change, result) => {
        finished.set(change, result);
        view.progress(result, adAccountId);
      },
      followingUp: (changes, underway) => {
        for (const change of changes) {
          if (underway) following.add(change);
          else following.delete(change);
        }
      },
    }),
    stoppedAtOnce: (plan) => {
      const results = plan.changes.map(whenStopped);
      return {
        plan,
        result: { adAccountId: plan.adAccountId, results, summary: countOutcomes(results) },
        remaining: [],
        unverified: null,
        interrupted: true,
      };
    },
  };
}

/** The saved plans, each plan's local paths as seen from here, wherever it was made from (see KindOperations.placing). */
export async function readSavedPlansHere(file: string, deps: Pick<ApplyDeps, 'cwd'>): Promise<Plan[]> {
  // The code of saved plans (their schema's validator among it, a noticeable part of a start) only for a saved plan.
  const { readSavedPlans } = await import('./saved-plan.js');
  const context = { cwd: deps.cwd, planFile: resolve(deps.cwd, file) };
  return Promise.all(
    (await readSavedPlans(file, deps.cwd, 'apply')).map((read) =>
      OPERATION_KINDS_IN_ORDER.reduce(
        async (plan, kind) => kind.placing?.(await plan, context) ?? plan,
        Promise.resolve(read),
      ),
    ),
  );
}

/**
 * Plans, each refused when the account (or an image file) changed since it was made; the accounts at once. Each is
 * read through the account's own client, never a list handed out early: the check must see the account as it is now.
 */
async function freshPlans(plans: Plan[], deps: ApplyDeps, checked: CheckedPlan): Promise<Plan[]> {
  await Promise.all(
    plans.map((plan) =>
      checkPlanIsFresh(
        plan,
        deps.client(plan.adAccountId, plan.requestsPerSecond),
        { cwd: deps.cwd, services: deps.services },
        checked,
      ),
    ),
  );
  return plans;
}

/** The files planned and shown; nothing (exit 1) when a plan has errors. */
async function plannedFromFiles(
  read: Array<{ file: string; desired: DesiredState }>,
  request: ApplyRequest,
  deps: ApplyDeps,
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader,
): Promise<Plan[] | undefined> {
  const planned = await planFiles(
    request.files,
    {
      allowMassDelete: request.allowMassDelete,
      scope: request.scope,
      requestsPerSecond: request.requestsPerSecond,
      // Only --auto-approve applies the plan at once: an approved plan is checked again first, as a saved one is.
      appliedAtOnce: request.autoApprove,
      read,
    },
    { cwd: deps.cwd, reader, services: deps.services },
  );
  const plans = planned.map((account) => account.plan);
  deps.view.showPlans(plans);
  return plans.some((plan) => plan.errors.length > 0) ? undefined : plans;
}

/** The audience API, and what each kind's changes in the plan need besides. */
function servicesFor(plan: Plan, deps: ApplyDeps): ApplyServices {
  return Object.assign(
    { audiences: deps.client(plan.adAccountId, plan.requestsPerSecond) },
    ...OPERATION_KINDS_IN_ORDER.map((kind) => kind.applyServices?.(plan, deps) ?? {}),
  );
}

/**
 * Applies one plan, then checks that every change it made is as planned and reports what
 * still differs. A failed check must not lose what was done: it is reported instead. Once
 * `signal` is aborted, no change starts and nothing is checked (a check under way is cut short).
 */
export async function applyAndVerify(
  plan: Plan,
  services: ApplyServices,
  progress: Partial<ApplyProgress> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<AppliedAccount> {
  const listed: ListedAfterWrites = { ids: undefined };
  const result = await applyPlan(plan, { ...services, listed }, progress, signal);
  // Interrupted, the person wants out: nothing more is asked of the service. The next plan shows what is left.
  if (signal.aborted) return { plan, result, remaining: [], unverified: null, interrupted: true };
  try {
    return {
      plan,
      result,
      remaining: await verifyApplied(plan, result, services.audiences, listed),
      unverified: null,
      interrupted: signal.aborted,
    };
  } catch (error) {
    return {
      plan,
      result,
      remaining: [],
      unverified: signal.aborted ? 'the check was interrupted' : causeOf(error),
      interrupted: signal.aborted,
    };
  }
}
