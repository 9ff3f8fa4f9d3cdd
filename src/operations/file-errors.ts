import { AppError } from '../errors.js';

const REASONS: Record<string, { reason: string; hint: string }> = {
  ENOENT: { reason: 'it does not exist', hint: 'check the path' },
  EEXIST: { reason: 'a file is in the way', hint: 'move that file, or run the command in another folder' },
  ENOTDIR: { reason: 'a part of its path is a file, not a folder', hint: 'choose another path' },
  EISDIR: { reason: 'it is a folder', hint: 'name a file, not a folder' },
  EACCES: { reason: 'permission denied', hint: 'choose a path you may write to' },
  EPERM: { reason: 'permission denied', hint: 'choose a path you may write to' },
  EROFS: { reason: 'the file system is read-only', hint: 'choose a path you may write to' },
  ENOSPC: { reason: 'the disk is full', hint: 'free some space and run the command again' },
};

/** A failed write of a file the user named, as an error that says which and why. */
export function fileWriteError(error: unknown, shown: string): AppError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // Writing creates the file: only a missing folder makes it fail as missing.
  const known =
    code === 'ENOENT'
      ? { reason: 'its folder does not exist', hint: 'create the folder first, or choose another path' }
      : REASONS[code];
  return new AppError({
    code: 'FILE_WRITE',
    source: 'user',
    summary: `cannot write ${shown}: ${known?.reason ?? (error as Error).message}`,
    hint: known?.hint ?? 'check the path and its permissions',
    cause: error,
  });
}

const VERBS: Record<string, string> = {
  open: 'open',
  read: 'read',
  write: 'write',
  mkdir: 'create the folder',
  rename: 'write',
  scandir: 'list the folder',
  unlink: 'remove',
  rm: 'remove',
  lstat: 'inspect',
  stat: 'inspect',
  realpath: 'follow',
};

/**
 * An error of the file system that reached the command (a folder it cannot create, a file
 * that is a folder), as the user's to fix: which path, what was tried, why. Undefined for any
 * other error.
 */
export function fileSystemError(error: unknown): AppError | undefined {
  const { code, syscall, path } = (error ?? {}) as NodeJS.ErrnoException;
  const known = REASONS[code ?? ''];
  if (known === undefined || syscall === undefined || path === undefined) return undefined;
  return new AppError({
    code: 'FILE_SYSTEM',
    source: 'user',
    summary: `cannot ${VERBS[syscall] ?? syscall} ${path}: ${known.reason}`,
    hint: known.hint,
    cause: error,
  });
}
