import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import { AppError } from '../errors.js';
import { fileWriteError } from './file-errors.js';

/**
 * What an apply of an ad account locks: one per account and working folder, beside the embedded emulator's state.
 * proper-lockfile keeps its locks by this path, and holds it as `<path>.lock` (applyLockPath).
 */
function lockedPath(adAccountId: number): string {
  return join('.audiences', `apply-${adAccountId}`);
}

/** Where an apply of an ad account holds its lock. */
export function applyLockPath(adAccountId: number): string {
  return `${lockedPath(adAccountId)}.lock`;
}

/** A lock whose holder stopped refreshing it this long ago (it was killed) is taken over. */
const STALE_MS = 30_000;

/**
 * Takes the apply lock of each account, or refuses with a clear message when another apply holds
 * one (and lets go of those it took): two applies of one account at once from one folder (a person
 * and a pipeline, two merges in quick succession) would both create what the file declares. Applies
 * of different accounts do not meet, so they run side by side. A lock (proper-lockfile: a folder
 * made atomically, its time refreshed while held) is taken over once its holder has stopped
 * refreshing it for 30 s. Returns the release of them all.
 */
export async function takeApplyLocks(cwd: string, adAccountIds: readonly number[]): Promise<() => Promise<void>> {
  try {
    await mkdir(join(cwd, '.audiences'), { recursive: true });
  } catch (error) {
    throw fileWriteError(error, '.audiences/');
  }
  const releases: Array<() => Promise<void>> = [];
  const releaseAll = async (): Promise<void> => {
    await Promise.all(releases.map((release) => release()));
  };
  try {
    // In one order, so that two applies of overlapping accounts refuse on the same one.
    for (const adAccountId of [...new Set(adAccountIds)].sort((a, b) => a - b))
      releases.push(await takeApplyLock(cwd, adAccountId));
  } catch (error) {
    await releaseAll();
    throw error;
  }
  return releaseAll;
}

async function takeApplyLock(cwd: string, adAccountId: number): Promise<() => Promise<void>> {
  const path = applyLockPath(adAccountId);
  try {
    // A lock lost while held (its folder removed, or taken over after a stall) must not stop an
    // apply halfway: the changes in flight and the summary matter more. It is only released.
    const release = await lock(join(cwd, lockedPath(adAccountId)), {
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: () => undefined,
    });
    return () => release().catch(() => undefined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw fileWriteError(error, path);
    throw new AppError({
      code: 'APPLY_LOCKED',
      source: 'user',
      summary: `another apply of ad account ${adAccountId} is running in this folder (it holds ${path})`,
      hint: `wait for it to finish, then plan again; a lock left by an apply that was killed is taken over ${STALE_MS / 1000} s after it stopped`,
    });
  }
}
