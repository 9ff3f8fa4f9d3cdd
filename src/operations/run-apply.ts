import type { AccountReader } from './account-reader.js';
import type { ApplyDeps, ApplyInput, ApplyInterrupts, ApplyRequest } from './apply.js';
import { takeApplyLocks } from './apply-lock.js';
import { hintedAccounts, withListsStarted } from './early-list.js';
import { readValidDesiredStates } from './validate.js';

const UNINTERRUPTED: ApplyInterrupts = {
  signal: new AbortController().signal,
  settleFirst: () => undefined,
  applying: () => undefined,
  said: () => undefined,
};

/** The input read, its accounts' apply locks held, and the reader that plans them (their lists started, for files). */
interface Started {
  input: ApplyInput;
  release: () => Promise<void>;
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader;
}

/**
 * The apply use case. A saved plan is checked for staleness and applied (saving it was the
 * approval). Otherwise the files are planned, the plan shown, and applied after approval or
 * with --auto-approve. The accounts are applied at the same time, each on its own (its results,
 * its summary). Returns the exit code: 0 when everything was done and checked. One apply at a
 * time per account and working folder (see apply-lock.ts).
 *
 * Only reading the files and locking their accounts is loaded with this module: the code of planning and applying
 * (apply.ts) loads while the accounts' lists are answered. An account is listed only while its lock is held, and the
 * lock is held from its list to the end of the apply.
 */
export async function runApply(request: ApplyRequest, deps: ApplyDeps): Promise<number> {
  const interrupts = deps.interrupts ?? UNINTERRUPTED;
  const starting = request.savedPlan ? readSavedAndLock(request.savedPlan, deps) : readFilesAndLock(request, deps);
  interrupts.settleFirst(starting);
  const { input, release, reader } = await starting;
  try {
    const { planAndApply } = await import('./apply.js');
    return await planAndApply(input, request, deps, interrupts, reader);
  } finally {
    await release();
  }
}

/** The saved plans read, and the apply locks of their accounts taken: before anything is read of an account. */
async function readSavedAndLock(savedPlan: string, deps: ApplyDeps): Promise<Started> {
  const saved = await (await import('./apply.js')).readSavedPlansHere(savedPlan, deps);
  const release = await takeApplyLocks(
    deps.cwd,
    saved.map((plan) => plan.adAccountId),
  );
  return { input: { saved }, release, reader: deps.client };
}

/**
 * The files read and checked, and the apply locks of their accounts taken, their lists started. The accounts the
 * files' heads name (hintedAccounts) are locked and listed first, so that the lists are answered while the files are
 * checked; when they turn out not to be the files' accounts, or cannot be locked, the files' own accounts are locked
 * and listed once the files are checked, as without the hint. A lock that cannot be taken is thus said only for a
 * valid file: a file's problems come first.
 */
async function readFilesAndLock(request: ApplyRequest, deps: ApplyDeps): Promise<Started> {
  const hinted = await hintedAccounts(request.files, deps.cwd);
  const early = hinted.size > 0 ? await takeApplyLocks(deps.cwd, [...hinted]).catch(() => undefined) : undefined;
  let files;
  try {
    const reader = early ? withListsStarted(hinted, deps.client) : deps.client;
    // Loaded while the lists are answered; awaited (and any failure said) by runApply.
    import('./apply.js').catch(() => undefined);
    files = await readValidDesiredStates(request.files, deps.cwd);
    if (early && sameAccounts(files, hinted)) return { input: { files }, release: early, reader };
  } catch (error) {
    await early?.();
    throw error;
  }
  // The early lists are dropped unused.
  await early?.();
  const accounts = files.map((read) => read.desired.adAccountId);
  const release = await takeApplyLocks(deps.cwd, accounts);
  return { input: { files }, release, reader: withListsStarted(new Set(accounts), deps.client) };
}

function sameAccounts(files: Array<{ desired: { adAccountId: number } }>, hinted: Set<number>): boolean {
  const accounts = new Set(files.map((read) => read.desired.adAccountId));
  return accounts.size === hinted.size && [...accounts].every((adAccountId) => hinted.has(adAccountId));
}
