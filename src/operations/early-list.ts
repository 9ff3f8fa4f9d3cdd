import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { namedFiles } from '../config/default-file.js';
import type { LiveAudienceSummary } from '../model/index.js';
import type { AccountReader } from './account-reader.js';

/** How much of a file's start is looked at for its account: the line is at the top of any file the tool writes. */
const HEAD_BYTES = 64 * 1024;
/**
 * A top-level `adAccountId: 1234` line (a comment after it allowed): the only spelling looked for; first in a file, it
 * may follow a byte-order mark, which the reading skips too.
 */
const ACCOUNT_LINE = /^\ufeff?adAccountId:[ \t]*([1-9][0-9]{0,15})[ \t]*(?:#.*)?\r?$/m;

/**
 * Starts listing the account of each file before the file is checked, so that the list is in flight, and its
 * answer on the way, while the checking runs (a large file takes a few hundred milliseconds, in which nothing else
 * runs). The account is taken from a top-level `adAccountId: DIGITS` line in the file's first 64 KiB: a hint
 * only, never a reading of the file. The reader returned hands a plan that early list when the checked file names
 * the same account, once (a second list, e.g. confirming a deletion, is made as before); for any other account, or
 * a file whose line was not found, it is the reader as given. A list that fails, or that a file found invalid
 * never uses, is dropped quietly: a plan that uses it gets its error, as it would have from its own list.
 */
export async function listEarly(
  files: string[],
  cwd: string,
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader,
): Promise<(adAccountId: number, requestsPerSecond?: number) => AccountReader> {
  return withListsStarted(await hintedAccounts(files, cwd), reader);
}

/**
 * The accounts the heads of `files` name (the default file when none is given): a hint only, never a reading of the
 * files (see listEarly); a file that cannot be read, or has no such line, adds none.
 */
export async function hintedAccounts(files: string[], cwd: string): Promise<Set<number>> {
  return new Set((await Promise.all(namedFiles(files, cwd).map((file) => accountOf(resolve(cwd, file))))).flat());
}

/**
 * Starts listing each of `accounts` now; the reader returned hands a plan of one of them that list, once, and is the
 * reader as given otherwise (see listEarly). A list that fails, or that no plan uses, is dropped quietly.
 */
export function withListsStarted(
  accounts: Iterable<number>,
  reader: (adAccountId: number, requestsPerSecond?: number) => AccountReader,
): (adAccountId: number, requestsPerSecond?: number) => AccountReader {
  const early = new Map<number, Promise<LiveAudienceSummary[]>>();
  for (const adAccountId of accounts) {
    try {
      const listed = reader(adAccountId).list();
      listed.catch(() => undefined);
      early.set(adAccountId, listed);
    } catch {
      // Said again, at its usual point, by the reader the plan makes.
    }
  }
  return (adAccountId, requestsPerSecond) => {
    const own = reader(adAccountId, requestsPerSecond);
    const listed = early.get(adAccountId);
    if (listed === undefined) return own;
    early.delete(adAccountId);
    let taken = false;
    return {
      list: () => {
        if (taken) return own.list();
        taken = true;
        return listed;
      },
      read: (id) => own.read(id),
      adGroups: (id) => own.adGroups(id),
    };
  };
}

/** The account a file's head names (none when it cannot be read or has no such line: the checking says why). */
async function accountOf(path: string): Promise<number[]> {
  let handle;
  try {
    // Not a FIFO or a device, whose reading could wait or never end.
    if (!(await stat(path)).isFile()) return [];
    handle = await open(path, 'r');
    const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(HEAD_BYTES), position: 0 });
    const found = ACCOUNT_LINE.exec(buffer.subarray(0, bytesRead).toString('utf8'));
    const id = Number(found?.[1]);
    return Number.isSafeInteger(id) ? [id] : [];
  } catch {
    return [];
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
