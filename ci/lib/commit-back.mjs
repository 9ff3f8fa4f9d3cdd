// Committing what an apply generated (the images declared in the files and images.lock.json
// beside each) back to the branch it applied: the lock holds the seeds that make every image
// reproducible, so it must outlive the job.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { DEFAULT_FILE, redact } from './tool.mjs';

const LOCK_FILE = 'images.lock.json';

/** A push the token is not allowed to make: the message says which permission to give. */
export class PushDeniedError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'PushDeniedError';
  }
}

/**
 * Runs git; never throws: the exit code and the output (credentials in URLs hidden).
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv }} options
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export function git(args, { cwd, env = process.env }) {
  return new Promise((done) => {
    execFile('git', args, { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: redact(String(stderr)) }),
    );
  });
}

/**
 * The paths an apply of these files may write or delete, relative to `cwd`: the lock beside each
 * file and every image file it records, in the lock on disk and in the lock of the commit
 * checked out (so an image the apply removed is found too).
 * @param {string[]} files
 * @param {string} cwd
 */
export async function imagePaths(files, cwd) {
  const paths = new Set();
  for (const file of files.length === 0 ? [DEFAULT_FILE] : files) {
    const dir = dirname(file);
    const lock = posix.join(dir.split('\\').join('/'), LOCK_FILE);
    paths.add(lock);
    const onDisk = await readFile(join(cwd, lock), 'utf8').catch(() => undefined);
    const committed = await git(['show', `HEAD:./${lock}`], { cwd });
    for (const text of [onDisk, committed.code === 0 ? committed.stdout : undefined]) {
      for (const output of lockOutputs(text)) paths.add(posix.normalize(posix.join(dir, output)));
    }
  }
  return [...paths].sort();
}

/**
 * The image files a lock records (`images.<name>.outputs[].path`, relative to its folder).
 * @param {string | undefined} text
 * @returns {string[]}
 */
function lockOutputs(text) {
  if (!text) return [];
  try {
    const lock = JSON.parse(text);
    return Object.values(lock.images ?? {}).flatMap((image) =>
      Array.isArray(image?.outputs) ? image.outputs.map((/** @type {any} */ output) => output?.path).filter((path) => typeof path === 'string') : [],
    );
  } catch {
    return [];
  }
}

/**
 * Which of these paths differ from the commit checked out (new, changed or deleted).
 * @param {string[]} paths
 * @param {string} cwd
 */
export async function changedPaths(paths, cwd) {
  if (paths.length === 0) return [];
  const status = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths], { cwd });
  if (status.code !== 0) throw new Error(`git status failed: ${status.stderr.trim()}`);
  const root = (await git(['rev-parse', '--show-prefix'], { cwd })).stdout.trim();
  // git status names paths from the repository's root; give them back relative to cwd.
  return status.stdout
    .split('\0')
    .filter(Boolean)
    .map((entry) => entry.slice(3))
    .map((path) => (root && path.startsWith(root) ? path.slice(root.length) : path));
}

/**
 * Whether the token may push to the branch, asked before the apply changes anything (a dry
 * run asks the server for push access, and GitHub and GitLab refuse it to a read-only token).
 * @param {{ cwd: string, remote: string, branch: string }} options
 */
export async function checkPush({ cwd, remote, branch }) {
  const result = await git(['push', '--dry-run', '--porcelain', remote, `HEAD:refs/heads/${branch}`], { cwd });
  if (result.code === 0) return;
  const text = `${result.stderr}\n${result.stdout}`.trim();
  if (deniedPattern.test(text)) throw new PushDeniedError(text);
  // A branch that moved since the checkout is no reason to refuse: the push rebases.
  if (/rejected|fetch first|non-fast-forward/i.test(text)) return;
  throw new PushDeniedError(text);
}

const deniedPattern = /\b403\b|\b401\b|permission|denied|not allowed|protected branch|authentication failed|could not read username|unable to access|forbidden/i;

/**
 * Commits the changed paths and pushes the commit to the branch, rebasing on what others
 * pushed meanwhile (up to three times).
 * @param {{ cwd: string, paths: string[], remote: string, branch: string, message: string, pushOptions?: string[], author: { name: string, email: string } }} options
 * @returns {Promise<{ commit: string } | undefined>} the commit pushed, or undefined when nothing changed
 */
export async function commitAndPush({ cwd, paths, remote, branch, message, pushOptions = [], author }) {
  const changed = await changedPaths(paths, cwd);
  if (changed.length === 0) return undefined;
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: process.env.GIT_AUTHOR_NAME || author.name,
    GIT_AUTHOR_EMAIL: process.env.GIT_AUTHOR_EMAIL || author.email,
    GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME || author.name,
    GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL || author.email,
  };
  await must(git(['add', '-A', '--', ...changed], { cwd }), 'git add');
  await must(git(['commit', '--no-verify', '-m', message, '--', ...changed], { cwd, env }), 'git commit');
  const options = pushOptions.flatMap((option) => ['-o', option]);
  for (let attempt = 1; ; attempt++) {
    const push = await git(['push', ...options, remote, `HEAD:refs/heads/${branch}`], { cwd });
    if (push.code === 0) return { commit: (await git(['rev-parse', 'HEAD'], { cwd })).stdout.trim() };
    const text = push.stderr.trim();
    const moved = /rejected|fetch first|non-fast-forward/i.test(text) && !/protected branch|pre-receive hook declined/i.test(text);
    if (!moved) throw new PushDeniedError(text);
    if (attempt >= 3) throw new Error(`the branch ${branch} kept moving: the push was refused ${attempt} times\n${text}`);
    await must(git(['fetch', '--quiet', remote, `refs/heads/${branch}`], { cwd }), 'git fetch');
    const rebase = await git(['rebase', 'FETCH_HEAD'], { cwd, env });
    if (rebase.code !== 0) {
      await git(['rebase', '--abort'], { cwd });
      throw new Error(`the generated files conflict with what was pushed to ${branch} meanwhile: ${rebase.stderr.trim() || rebase.stdout.trim()}`);
    }
  }
}

/**
 * @param {Promise<{ code: number, stdout: string, stderr: string }>} run
 * @param {string} what
 */
async function must(run, what) {
  const result = await run;
  if (result.code !== 0) throw new Error(`${what} failed: ${(result.stderr || result.stdout).trim()}`);
  return result;
}
