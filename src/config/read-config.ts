import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileTooLarge, readUpTo } from '../bounded-read.js';
import type { AppError } from '../errors.js';
import { LineCounter, parseDocument } from 'yaml';
import { decodeUtf8 } from './decode.js';
import { createLocator, type Path, type Position } from './positions.js';
import type { ConfigIssue, ConfigResult } from './issues.js';
import { LIMITS, validateConfig } from './validate-config.js';

/**
 * Reads each file (relative to `cwd`; named in results as given) and validates it: bytes →
 * UTF-8 → validateConfig. A file that cannot be read is a problem of that file, not an
 * exception, so every file gets its answer. `source.hash` is the hash of the bytes.
 *
 * A file larger than LIMITS.bytes is not an audiences file with a problem but the wrong file
 * (or a hostile one): it throws FILE_TOO_LARGE, found by the sizes of all the files before
 * any of them is read.
 */
export async function readDesiredStates(
  files: string[],
  cwd: string,
): Promise<Array<{ file: string; result: ConfigResult }>> {
  await Promise.all(files.map((file) => checkSize(file, cwd)));
  return Promise.all(files.map(async (file) => ({ file, result: await readDesiredState(file, cwd) })));
}

/** Throws FILE_TOO_LARGE for a regular file past the limit; any other problem is left to the reading, which says it. */
async function checkSize(file: string, cwd: string): Promise<void> {
  let info;
  try {
    info = await stat(resolve(cwd, file));
  } catch {
    return;
  }
  if (info.isFile() && info.size > LIMITS.bytes) throw tooLarge(file, info.size);
}

/** The error for a desired-state file past LIMITS.bytes. */
function tooLarge(file: string, size?: number): AppError {
  return fileTooLarge(
    file,
    LIMITS.bytes,
    'an audiences file',
    'is this the right file? 10,000 audiences take about 1 MB (2 MB as import writes them, with a comment each)',
    size,
  );
}

async function readDesiredState(file: string, cwd: string): Promise<ConfigResult> {
  const read = await readBytes(resolve(cwd, file), file);
  if (!read.ok) return { ok: false, issues: [{ file, line: 0, column: 0, pointer: '', ...read.problem }] };
  return desiredStateOfBytes(read.bytes, file);
}

/**
 * The bytes of a desired-state file (read from disk, or from git at a base ref), validated:
 * UTF-8 → validateConfig, `source.hash` the hash of the bytes. Past LIMITS.bytes, FILE_TOO_LARGE.
 */
export function desiredStateOfBytes(bytes: Uint8Array, file: string): ConfigResult {
  if (bytes.length > LIMITS.bytes) throw tooLarge(file, bytes.length);
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) {
    const byte = (bytes[decoded.at.offset] ?? 0).toString(16).padStart(2, '0');
    return {
      ok: false,
      issues: [
        {
          file,
          line: decoded.at.line,
          column: decoded.at.column,
          pointer: '',
          message: `the file is not UTF-8 (byte 0x${byte})`,
          hint: 'save the file as UTF-8',
        },
      ],
    };
  }
  const result = validateConfig(decoded.text, file);
  if (result.ok) result.value.source.hash = createHash('sha256').update(bytes).digest('hex');
  return result;
}

type Problem = Pick<ConfigIssue, 'message' | 'hint'>;

/** Reads the file, refused past the limit (see readUpTo). */
async function readBytes(
  path: string,
  file: string,
): Promise<{ ok: true; bytes: Uint8Array } | { ok: false; problem: Problem }> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    return { ok: false, problem: openProblem(error) };
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory())
      return { ok: false, problem: { message: 'is a directory, not a file', hint: 'name the YAML file with -f' } };
    const bytes = await readUpTo(handle, LIMITS.bytes);
    if (bytes !== undefined) return { ok: true, bytes };
  } catch (error) {
    return { ok: false, problem: openProblem(error) };
  } finally {
    await handle.close();
  }
  throw tooLarge(file);
}

function openProblem(error: unknown): Problem {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT')
    return {
      message: 'file not found',
      hint: 'create it, pass another with -f FILE, or start from the live account with `audiences import`',
    };
  if (code === 'EACCES' || code === 'EPERM')
    return { message: 'permission denied', hint: 'check the permissions of the file' };
  if (code === 'EISDIR') return { message: 'is a directory, not a file', hint: 'name the YAML file with -f' };
  return { message: `cannot read the file: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * Where each of `paths` is written in a file (the key for a path that ends on a map's key, else the value): for a
 * problem found once the file was read and checked, between files (a name declared in two). Read again with positions
 * only then: a valid file is read without them (see plain-yaml.ts).
 */
export async function locateInFile(file: string, cwd: string, paths: readonly Path[]): Promise<Position[]> {
  const read = await readBytes(resolve(cwd, file), file);
  if (!read.ok) return paths.map(() => ({ line: 0, column: 0 }));
  const lineCounter = new LineCounter();
  const doc = parseDocument(Buffer.from(read.bytes).toString('utf8'), { lineCounter, merge: true, logLevel: 'error' });
  const locate = createLocator(doc, lineCounter);
  return paths.map((path) => locate(path, 'value'));
}
