import { lstat, mkdir, readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { lock } from 'proper-lockfile';
import { sha256, type ImageStore } from '../../apply/kinds/image.js';
import { emptyImageLock, parseImageLock, renderImageLock } from '../../config/image-lock.js';
import { writeFileAtomically } from '../files.js';
import { detectImageFormat, LOCK_FILE, type LockedOutput } from '../../model/index.js';
import { lockError, readLockOrThrow } from './lock-file.js';
import { inside, outsideReason, realParent } from './project-paths.js';

/**
 * The store the image applier writes through: paths checked again at write time, files and
 * lock written atomically, files removed only once each is checked again as the plan saw it.
 */
export function createImageStore(dir: string, shownLock: string): ImageStore {
  const lockPath = join(dir, LOCK_FILE);
  let lockWrites: Promise<unknown> = Promise.resolve();
  return {
    read: async (path) => readFile(await inside(dir, path)),
    write: async (files) => {
      for (const file of files) {
        await mkdir(dirname(await inside(dir, file.path)), { recursive: true });
        // Checked again once the folders exist: a link made in the meantime must not redirect the write.
        await writeFileAtomically(await inside(dir, file.path), file.bytes);
      }
    },
    remove: async (files) => {
      const changed = (await Promise.all(files.map((file) => removalProblem(dir, file)))).filter(
        (problem) => problem !== undefined,
      );
      if (changed.length > 0) return changed.join('; ');
      // Each file's folder, its links resolved again right before the unlinks: a folder swapped
      // for a link since the check must not lead an unlink out of the project.
      const parents = await Promise.all(files.map((file) => realParent(dir, file.path)));
      const left = files.flatMap((file, index) => {
        const parent = parents[index];
        return parent !== undefined && 'refused' in parent ? [`${file.path}: ${parent.refused}`] : [];
      });
      if (left.length > 0) return left.join('; ');
      for (const [index, file] of files.entries()) {
        const parent = parents[index];
        if (parent === undefined || 'refused' in parent) continue;
        try {
          // unlink removes the path itself: were a link put there since the check, what it leads to would stay.
          await unlink(join(parent.real, basename(file.path)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      return undefined;
    },
    record: (name, entry) => {
      // One lock update at a time: each reads the lock the previous one wrote.
      const update = lockWrites.then(() =>
        whileHeld(lockPath, async () => {
          const bytes = await readLockOrThrow(dir, shownLock);
          const parsed = bytes === undefined ? emptyImageLock() : parseImageLock(new TextDecoder().decode(bytes));
          // A lock that became unreadable since the plan is kept as it is, not replaced by one that forgets every image.
          if ('problem' in parsed) throw lockError(shownLock, parsed.problem, parsed.hint);
          if (entry === null) delete parsed.images[name];
          else parsed.images[name] = entry;
          await writeFileAtomically(lockPath, new TextEncoder().encode(renderImageLock(parsed)));
        }),
      );
      lockWrites = update.catch(() => undefined);
      return update;
    },
  };
}

/** How long an update of the image lock waits for another one to end, in all (a holder killed mid-update: its stale time). */
const LOCK_WAIT = { retries: 60, factor: 1.3, minTimeout: 5, maxTimeout: 500 } as const;

/**
 * Runs `update` of the image lock holding `<lock>.lock` for it: the applies of several accounts whose files share a
 * folder (so its images.lock.json), in one command or in several, update it one at a time, each reading what the
 * other wrote. Held for the update alone, a few milliseconds; one left by a killed process is taken over once stale.
 */
async function whileHeld(lockPath: string, update: () => Promise<void>): Promise<void> {
  const release = await lock(lockPath, { realpath: false, retries: LOCK_WAIT, onCompromised: () => undefined });
  try {
    await update();
  } finally {
    await release().catch(() => undefined);
  }
}

/**
 * Why a file the plan deletes must not be deleted now: it leads out of the project, became a
 * link or something else than a file, its bytes are no longer the recorded ones, or they are
 * not an image (the tool writes only images; planning requires it too, and a saved plan may
 * have been edited). A file already gone is no reason: there is nothing to delete.
 */
async function removalProblem(dir: string, file: LockedOutput): Promise<string | undefined> {
  const refused = await outsideReason(dir, file.path);
  if (refused !== undefined) return `${file.path}: ${refused}`;
  const absolute = resolve(dir, file.path);
  try {
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) return `${file.path} is now a link`;
    if (!info.isFile()) return `${file.path} is no longer a regular file`;
    const bytes = await readFile(absolute);
    if (sha256(bytes) !== file.sha256) return `${file.path} changed since the plan was made`;
    if (detectImageFormat(bytes) === undefined)
      return `${file.path} is not an image (by its content), and the tool writes only images`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${file.path}: ${(error as Error).message}`;
  }
  return undefined;
}
