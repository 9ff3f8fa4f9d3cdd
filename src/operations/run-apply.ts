import type { ApplyDeps, ApplyInput, ApplyInterrupts, ApplyRequest } from './apply.js';
import { takeApplyLocks } from './apply-lock.js';
import { withListsStarted } from './early-list.js';
import { readValidDesiredStates } from './validate.js';

const UNINTERRUPTED: ApplyInterrupts = {
  signal: new AbortController().signal,
  settleFirst: () => undefined,
  applying: () => undefined,
  said: () => undefined,
};

/**
 * The apply use case. A saved plan is checked for staleness and applied (saving it was the
 * approval). Otherwise the files are planned, the plan shown, and applied after approval or
 * with --auto-approve. The accounts are applied at the same time, each on its own (its results,
 * its summary). Returns the exit code: 0 when everything was done and checked. One apply at a
 * time per account and working folder (see apply-lock.ts).
 *
 * Only reading the files and locking their accounts is loaded with this module: once the locks are held, the files'
 * accounts are listed, and the code of planning and applying (apply.ts) loads while the lists are answered.
 */
export async function runApply(request: ApplyRequest, deps: ApplyDeps): Promise<number> {
  const interrupts = deps.interrupts ?? UNINTERRUPTED;
  const locking = readAndLock(request, deps);
  interrupts.settleFirst(locking);
  const { input, release } = await locking;
  try {
    const reader =
      'files' in input
        ? withListsStarted(new Set(input.files.map((read) => read.desired.adAccountId)), deps.client)
        : deps.client;
    const { planAndApply } = await import('./apply.js');
    return await planAndApply(input, request, deps, interrupts, reader);
  } finally {
    await release();
  }
}

/** The input read, and the apply locks of its accounts taken: before anything is read of an account. */
async function readAndLock(
  request: ApplyRequest,
  deps: ApplyDeps,
): Promise<{ input: ApplyInput; release: () => Promise<void> }> {
  const input: ApplyInput = request.savedPlan
    ? { saved: await (await import('./apply.js')).readSavedPlansHere(request.savedPlan, deps) }
    : { files: await readValidDesiredStates(request.files, deps.cwd) };
  const accounts =
    'saved' in input
      ? input.saved.map((plan) => plan.adAccountId)
      : input.files.map((read) => read.desired.adAccountId);
  return { input, release: await takeApplyLocks(deps.cwd, accounts) };
}
