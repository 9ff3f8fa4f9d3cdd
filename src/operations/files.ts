import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { fileWriteError } from './file-errors.js';

/**
 * Writes a file whole or not at all: a temporary file beside it, then a rename. A failed write
 * leaves no temporary file behind and is reported as the user's to fix, by the file's name
 * (`shown`, as the user gave it), not by the temporary file's.
 */
export async function writeFileAtomically(path: string, data: string | Uint8Array, shown: string = path): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw fileWriteError(error, shown);
  }
}
