import { basename, dirname, relative, resolve } from 'node:path';
import { sha256 } from '../../apply/kinds/image.js';
import { emptyImageLock, parseImageLock } from '../../config/image-lock.js';
import { dictionary, IMAGE_INPUT_FIELDS, own, type DesiredState, type ImageState } from '../../model/index.js';
import { inspectFile } from './local-files.js';
import { readLock } from './lock-file.js';

/**
 * The local side of a file's images, for planning: the lock beside the file and every image
 * file the plan needs (outputs, where the lock records them, local inputs with their real
 * format and size, and with pruneImages the files of each locked image no longer declared,
 * which a removal would delete). Nothing when the file declares no images and has no lock. Paths that lead out of
 * the file's folder, through `..` or a link, are refused rather than read; so is the lock.
 */
export async function readImageState(
  desired: DesiredState,
  file: string,
  cwd: string,
): Promise<ImageState | undefined> {
  const dir = dirname(resolve(cwd, file));
  const lockRead = await readLock(dir);
  if (!desired.images && lockRead === undefined) return undefined;

  const state: ImageState = {
    dir: relative(cwd, dir) || '.',
    file: basename(file),
    lock: emptyImageLock(),
    lockHash: null,
    files: dictionary(),
  };
  if (lockRead !== undefined && 'refused' in lockRead) state.lockProblem = lockRead.refused;
  else if (lockRead !== undefined) {
    state.lockHash = sha256(lockRead);
    const parsed = parseImageLock(new TextDecoder().decode(lockRead));
    if (!('problem' in parsed)) state.lock = parsed;
    else {
      state.lockProblem = parsed.problem;
      if (parsed.hint !== undefined) state.lockHint = parsed.hint;
    }
  }
  const inspections: Array<Promise<void>> = [];
  const inspect = (path: string, input: boolean): void => {
    if (own(state.files, path)) return;
    state.files[path] = { status: 'absent' };
    inspections.push(inspectFile(dir, path, input).then((found) => void (state.files[path] = found)));
  };
  for (const image of desired.images ?? []) {
    for (const output of image.outputs) inspect(output, false);
    for (const field of IMAGE_INPUT_FIELDS) {
      const input = image.inputs[field];
      if (input && 'file' in input) inspect(input.file, true);
    }
    // Where the lock records its files: a moved output is copied from there (and, with pruneImages, deleted).
    for (const output of own(state.lock.images, image.key)?.outputs ?? []) inspect(output.path, false);
  }
  if (desired.pruneImages) {
    const declared = new Set((desired.images ?? []).map((image) => image.key));
    const removed = Object.entries(state.lock.images).filter(([name]) => !declared.has(name));
    for (const [, locked] of removed) for (const output of locked.outputs) inspect(output.path, false);
  }
  await Promise.all(inspections);
  return state;
}
