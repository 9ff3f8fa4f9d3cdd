import { randomBytes } from 'node:crypto';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { AppError } from '../errors.js';
import { fileWriteError } from './file-errors.js';

/**
 * What is at a path a command is about to write: nothing, a regular file or a folder (symbolic
 * links followed). Anything else is refused before it is touched: writing would replace a
 * device such as /dev/null with a file, and reading a FIFO would hang. `hint` says what the
 * command writes instead.
 */
export async function writeTarget(path: string, shown: string, hint: string): Promise<'absent' | 'file' | 'folder'> {
  try {
    const found = await stat(path);
    if (found.isFile()) return 'file';
    if (found.isDirectory()) return 'folder';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw fileWriteError(error, shown);
  }
  throw new AppError({
    code: 'FILE_EXISTS',
    source: 'user',
    summary: `${shown} already exists and is not a regular file (a device, a FIFO or a socket)`,
    hint,
  });
}

/**
 * Writes a file whole or not at all: a temporary file beside it, then a rename. A failed write
 * leaves no temporary file behind and is reported as the user's to fix, by the file's name
 * (`shown`, as the user gave it), not by the temporary file's.
 */
export async function writeFileAtomically(
  path: string,
  data: string | Uint8Array,
  shown: string = path,
): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw fileWriteError(error, shown);
  }
}
