import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { projectPathProblem } from '../../config/image-rules.js';
import { AppError } from '../../errors.js';

// Image paths are confined to the folder of the desired-state file: `..`, absolute paths and
// links that lead out of it are refused, checked where a file is read and again where it is written.

/**
 * The absolute path of a project path, or an error when it leads out of the folder: `..`, an
 * absolute path, or a link (anywhere along the path) whose target is outside.
 */
export async function inside(dir: string, path: string): Promise<string> {
  const refused = await outsideReason(dir, path);
  if (refused !== undefined) {
    throw new AppError({
      code: 'IMAGE_PATH',
      source: 'user',
      summary: `refusing ${path}: ${refused}`,
      hint: 'keep image files in the folder of the desired-state file or below it',
    });
  }
  return resolve(dir, path);
}

export async function outsideReason(dir: string, path: string): Promise<string | undefined> {
  const lexical = projectPathProblem(path);
  if (lexical) return lexical.message.replace(`${JSON.stringify(path)} `, '');
  const target = resolve(dir, path);
  const root = await realpath(dir);
  // The deepest part of the path that exists, with its links resolved, must be in the folder.
  let existing = target;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    return 'it is a link that leads nowhere';
  }
  return within(root, real) ? undefined : 'it leads out of the project folder through a link';
}

/**
 * The real folder of a project path (its links resolved), when it is still in the project;
 * undefined when it no longer exists (nor does the file), `refused` when it leads out.
 */
export async function realParent(
  dir: string,
  path: string,
): Promise<{ real: string } | { refused: string } | undefined> {
  let real: string;
  try {
    real = await realpath(dirname(resolve(dir, path)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { refused: (error as Error).message };
  }
  return within(await realpath(dir), real)
    ? { real }
    : { refused: 'it leads out of the project folder through a link' };
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
