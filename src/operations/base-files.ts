import { execFile } from 'node:child_process';
import { basename, dirname, resolve } from 'node:path';
import { desiredStateOfBytes, LIMITS } from '../config/index.js';
import { parseImageLock } from '../config/image-lock.js';
import { AppError } from '../errors.js';
import { LOCK_FILE, type DesiredState, type ImageLock } from '../model/index.js';
import type { PlanBase } from '../plan/index.js';

/**
 * Each desired-state file as it was at a git ref (`plan --base REF`), as the plan compares it
 * (see PlanBase): read with git from the file's own repository (run in its folder), never from
 * the working tree. A file the ref does not hold is `absent` there (everything it plans is the
 * change's own, under the default mass-delete guard at least); one that is not valid there, or describes another ad
 * account, is compared with nothing, and the plan says why. A ref the repository lacks, or a file in no repository, is
 * the user's error: a drift label that cannot be computed must not pass for "no drift".
 */
export async function readBases(
  files: Array<{ file: string; desired: DesiredState }>,
  ref: string,
  cwd: string,
): Promise<PlanBase[]> {
  const commits = new Map<string, Promise<string>>();
  return Promise.all(
    files.map(async ({ file, desired }) => {
      const dir = dirname(resolve(cwd, file));
      const commit = commits.get(dir) ?? resolveRef(dir, ref, file);
      commits.set(dir, commit);
      const [bytes, imageLock] = await Promise.all([
        readAt(dir, await commit, basename(file)),
        readLockAt(dir, await commit),
      ]);
      const lock = imageLock === undefined ? {} : { imageLock };
      if (bytes === undefined) return { ref, absent: true, ...lock };
      if ('problem' in bytes) return { ref, problem: bytes.problem, ...lock };
      const result = desiredStateOfBytes(bytes, file);
      if (!result.ok) {
        const [first] = result.issues;
        const more = result.issues.length > 1 ? `, and ${result.issues.length - 1} more` : '';
        const where = first && first.line > 0 ? `line ${first.line}, column ${first.column}: ` : '';
        return { ref, problem: `it is not valid there (${where}${first?.message ?? 'a problem'}${more})`, ...lock };
      }
      if (result.value.adAccountId !== desired.adAccountId)
        return {
          ref,
          problem: `it describes ad account ${result.value.adAccountId} there, not ${desired.adAccountId}`,
          ...lock,
        };
      return { ref, desired: result.value, ...lock };
    }),
  );
}

/**
 * The commit `ref` names in the repository of `dir`; the user's error when there is no repository or no such commit.
 */
async function resolveRef(dir: string, ref: string, file: string): Promise<string> {
  const top = await git(dir, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) {
    throw new AppError({
      code: 'BASE_NOT_IN_GIT',
      source: 'user',
      summary: `--base reads each file at a git ref, but ${file} is in no git repository`,
      detail: gitMessage(top.stderr),
      hint: 'plan in a clone of the repository that holds the file (as a pipeline checks it out), or leave out --base',
    });
  }
  // --end-of-options: a ref that looks like an option (`--output=…`) is a ref, never an option.
  const found = await git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  const commit = found.stdout.toString('utf8').trim();
  if (found.code !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) {
    throw new AppError({
      code: 'BASE_REF_NOT_FOUND',
      source: 'user',
      summary: `the base ${ref} is not a commit of the repository that holds ${file}`,
      detail: gitMessage(found.stderr),
      hint: `name a branch, tag or commit the clone holds; a shallow clone (a pipeline's checkout) may lack it: fetch it (\`git fetch origin ${ref}\`) or check out the whole history (GitHub: fetch-depth: 0)`,
    });
  }
  return commit;
}

/**
 * images.lock.json beside the file at `commit`: null when the commit holds none (every image of the checkout's lock is
 * new), undefined when it is not a lock there (nothing is told from it).
 */
async function readLockAt(dir: string, commit: string): Promise<ImageLock | null | undefined> {
  const bytes = await readAt(dir, commit, LOCK_FILE);
  if (bytes === undefined) return null;
  if ('problem' in bytes) return undefined;
  const lock = parseImageLock(new TextDecoder().decode(bytes));
  return 'problem' in lock ? undefined : lock;
}

/** The bytes of `name` (in `dir`) at `commit`; undefined when the commit does not hold it. */
async function readAt(
  dir: string,
  commit: string,
  name: string,
): Promise<Uint8Array | { problem: string } | undefined> {
  const object = `${commit}:./${name}`;
  const type = await git(dir, ['cat-file', '-t', object]);
  if (type.code !== 0) return undefined;
  if (type.stdout.toString('utf8').trim() !== 'blob') return { problem: 'it is not a file there' };
  const size = Number((await git(dir, ['cat-file', '-s', object])).stdout.toString('utf8').trim());
  if (!(size <= LIMITS.bytes)) return { problem: `it is larger than an audiences file may be there (${size} bytes)` };
  const read = await git(dir, ['cat-file', 'blob', object]);
  if (read.code !== 0) return { problem: `git cannot read it: ${gitMessage(read.stderr) ?? `exit ${read.code}`}` };
  return read.stdout;
}

interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: Buffer;
}

/** Runs git in `dir`, its output as bytes; git missing is the user's error. */
function git(dir: string, args: string[]): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      ['-C', dir, ...args],
      { encoding: 'buffer', maxBuffer: LIMITS.bytes + 1, windowsHide: true },
      (error, stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(
            new AppError({
              code: 'BASE_NOT_IN_GIT',
              source: 'user',
              summary: '--base reads each file at a git ref with git, which is not installed (or not on PATH)',
              hint: 'install git, or leave out --base',
            }),
          );
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** git's own message, its first line, for the detail of an error; undefined when it said nothing. */
function gitMessage(stderr: Buffer): string | undefined {
  const line = stderr.toString('utf8').trim().split('\n')[0];
  return line ? `git: ${line}` : undefined;
}
