import type { FileHandle } from 'node:fs/promises';
import { AppError } from './errors.js';

/**
 * The bytes of an open file, read at most one byte past `limit`; undefined when it holds more.
 * A file whose size its stat does not tell (a pipe, /dev/zero) or that grew since it was
 * looked at is refused this way without being read whole. Shared by the desired-state files
 * and the saved plans, which each say in their own words what is too large.
 */
export async function readUpTo(handle: FileHandle, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length <= limit) {
    const chunk = Buffer.alloc(Math.min(1024 * 1024, limit + 1 - length));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    length += bytesRead;
  }
  return length <= limit ? Buffer.concat(chunks, length) : undefined;
}

/**
 * FILE_TOO_LARGE for a file past `limitBytes`, named as the user gave it; `size` when it is known
 * (a pipe or a device has none). `kind` says what the file is ("an audiences file").
 */
export function fileTooLarge(file: string, limitBytes: number, kind: string, hint: string, size?: number): AppError {
  const limit = `${limitBytes / (1024 * 1024)} MB`;
  return new AppError({
    code: 'FILE_TOO_LARGE',
    source: 'user',
    summary:
      size === undefined
        ? `${file} is larger than ${limit}, the limit of ${kind}`
        : `${file} is ${(size / (1024 * 1024)).toFixed(1)} MB, more than ${limit}, the limit of ${kind}`,
    hint,
  });
}
