import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders made by `temporaryDir` in this test file, not yet removed. */
const made = new Set<string>();

/**
 * A new folder in the system's temporary folder, named `prefix` and a random tail; removed
 * after the test file's last test (test/helpers/remove-temporary.ts), so a run of the suite
 * leaves nothing behind.
 */
export async function temporaryDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes every folder made by `temporaryDir` so far. */
export async function removeTemporaryDirs(): Promise<void> {
  const dirs = [...made];
  made.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}
