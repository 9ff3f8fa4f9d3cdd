import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { lock } from 'proper-lockfile';
import { AppError } from '../errors.js';
import { fileWriteError } from './file-errors.js';

/** Where an apply holds its lock: one per working folder, beside the embedded emulator's state. */
export const APPLY_LOCK = join('.audiences', 'apply.lock');

/** A lock whose holder stopped refreshing it this long ago (it was killed) is taken over. */
const STALE_MS = 30_000;

/**
 * Takes the working folder's apply lock, or refuses with a clear message when another apply
 * holds it: two applies at once from one folder (a person and a pipeline, two merges in quick
 * succession) would both create what the file declares. The lock (proper-lockfile: a folder
 * made atomically, its time refreshed while held) is taken over once its holder has stopped
 * refreshing it for 30 s. Returns the release.
 */
export async function takeApplyLock(cwd: string): Promise<() => Promise<void>> {
  try {
    await mkdir(join(cwd, '.audiences'), { recursive: true });
  } catch (error) {
    throw fileWriteError(error, '.audiences/');
  }
  try {
    // A lock lost while held (its folder removed, or taken over after a stall) must not stop an
    // apply halfway: the changes in flight and the summary matter more. It is only released.
    const release = await lock(cwd, {
      lockfilePath: join(cwd, APPLY_LOCK),
      realpath: false,
      stale: STALE_MS,
      retries: 0,
      onCompromised: () => undefined,
    });
    return () => release().catch(() => undefined);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw fileWriteError(error, APPLY_LOCK);
    throw new AppError({
      code: 'APPLY_LOCKED',
      source: 'user',
      summary: `another apply is running in this folder (it holds ${APPLY_LOCK})`,
      hint: `wait for it to finish, then plan again; a lock left by an apply that was killed is taken over ${STALE_MS / 1000} s after it stopped`,
    });
  }
}
