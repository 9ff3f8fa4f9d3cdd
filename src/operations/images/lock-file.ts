import { constants } from 'node:fs';
import { lstat, open, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../errors.js';
import { IMAGE_LOCK_HINT, LOCK_FILE } from '../../model/index.js';
import { outsideReason } from './project-paths.js';

// images.lock.json on disk: read only when it is a regular file in the project, refused otherwise.

/**
 * The lock's bytes (undefined when there is none), read only when it is a regular file in the
 * project: a lock that is a link out of it, or a folder, a FIFO or a device, is refused
 * unread, and the string says why. Should one be put in its place after the check,
 * `O_NONBLOCK` keeps a FIFO from hanging the read and `O_NOFOLLOW` keeps a link from being followed.
 */
export async function readLock(dir: string): Promise<Uint8Array | undefined | { refused: string }> {
  const path = join(dir, LOCK_FILE);
  let target = path;
  try {
    if ((await lstat(path)).isSymbolicLink()) {
      const refused = await outsideReason(dir, LOCK_FILE);
      if (refused !== undefined) return { refused: `${refused}; it was not read` };
      target = await realpath(path);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { refused: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let handle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) return { refused: 'it is not a regular file; it was not read' };
    return await handle.readFile();
  } catch (error) {
    return { refused: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    await handle?.close();
  }
}

/**
 * The lock's bytes for a check or an update, which cannot go on when it is refused (`shown`: the lock as the user knows
 * it).
 */
export async function readLockOrThrow(dir: string, shown: string): Promise<Uint8Array | undefined> {
  const read = await readLock(dir);
  if (read !== undefined && 'refused' in read) throw lockError(shown, read.refused);
  return read;
}

export function lockError(shown: string, problem: string, hint = IMAGE_LOCK_HINT): AppError {
  return new AppError({
    code: 'IMAGE_LOCK',
    source: 'user',
    summary: `${shown} cannot be used: ${problem}`,
    hint,
  });
}
