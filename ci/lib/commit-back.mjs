// Committing what an apply generated (the images declared in the files and images.lock.json
// beside each) back to the branch it applied: the lock holds the seeds that make every image
// reproducible, so it must outlive the job.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { DEFAULT_FILE, redact } from './tool.mjs';

export const LOCK_FILE = 'images.lock.json';

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
    execFile(
      'git',
      args,
      { cwd, env: { ...env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        done({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout: redact(String(stdout)),
          stderr: redact(String(stderr)),
        }),
    );
  });
}

/**
 * The paths an apply of these files may have written or deleted, relative to `cwd`: the lock
 * beside each file, and each image file a lock records that the tool wrote. A lock may be edited
 * by hand to name any file, so a path it names counts only when the apply can have made it as it
 * is: a regular file that is an image with the bytes the lock on disk records for it (generated,
 * or kept), or a file gone from disk whose image the apply removed (its entry is in the lock of
 * the commit checked out, not in the lock on disk) and that this commit holds as an image with
 * the bytes its lock recorded, as the tool requires to delete a file. Any other (a secret the
 * job wrote with the hash a lock names, a file another step deleted, a path out of the folder or
 * in .git) is never committed.
 * @param {string[]} files
 * @param {string} cwd
 */
export async function imagePaths(files, cwd) {
  const paths = new Set();
  for (const file of files.length === 0 ? [DEFAULT_FILE] : files) {
    const dir = dirname(file).split('\\').join('/');
    const lock = posix.join(dir, LOCK_FILE);
    paths.add(lock);
    const onDisk = lockOutputs(await readFile(join(cwd, lock), 'utf8').catch(() => undefined), dir);
    const committedLock = await git(['show', `HEAD:./${lock}`], { cwd });
    const committed = lockOutputs(committedLock.code === 0 ? committedLock.stdout : undefined, dir);
    for (const { path, sha256 } of onDisk) {
      const bytes = await diskBytes(join(cwd, path));
      if (bytes !== undefined && isImage(bytes) && sha256Of(bytes) === sha256) paths.add(path);
    }
    const kept = new Set(onDisk.map((output) => output.image));
    for (const { image, path, sha256 } of committed) {
      if (kept.has(image) || (await diskBytes(join(cwd, path))) !== undefined) continue;
      const blob = await gitBytes(['cat-file', 'blob', `HEAD:./${path}`], cwd);
      if (blob !== undefined && isImage(blob) && sha256Of(blob) === sha256) paths.add(path);
    }
  }
  return [...paths].sort();
}

/**
 * The image files a lock records (`images.<name>.outputs[]`), with the image's name, each path
 * relative to `cwd` and inside the lock's folder, out of .git; those that are not are left out.
 * @param {string | undefined} text
 * @param {string} dir the lock's folder, relative to `cwd`
 * @returns {Array<{ image: string, path: string, sha256: string }>}
 */
export function lockOutputs(text, dir) {
  if (!text) return [];
  let lock;
  try {
    lock = JSON.parse(text);
  } catch {
    return [];
  }
  const images = typeof lock?.images === 'object' && lock.images !== null ? Object.entries(lock.images) : [];
  return images.flatMap(([image, /** @type {any} */ entry]) =>
    (Array.isArray(entry?.outputs) ? entry.outputs : []).flatMap((/** @type {any} */ output) => {
      const { path, sha256 } = output ?? {};
      if (
        typeof path !== 'string' ||
        typeof sha256 !== 'string' ||
        posix.isAbsolute(path) ||
        path.split(/[/\\]/).includes('..')
      )
        return [];
      const inside = posix.normalize(posix.join(dir, path));
      return inside.startsWith('../') || inside.split('/').includes('.git') ? [] : [{ image, path: inside, sha256 }];
    }),
  );
}

/**
 * Whether bytes are a PNG, a JPEG or a WebP image by their signature, the only files the tool
 * writes (as detectImageFormat in src/model/image.ts tells them; this script imports nothing of the tool).
 * @param {Buffer} bytes
 */
function isImage(bytes) {
  const png = bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const jpeg = bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]));
  return png || jpeg || (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP');
}

/**
 * A regular file's bytes; undefined when there is none (absent, a link, a folder).
 * @param {string} path
 * @returns {Promise<Buffer | undefined>}
 */
async function diskBytes(path) {
  const info = await lstat(path).catch(() => undefined);
  return info?.isFile() ? readFile(path) : undefined;
}

/** @param {Uint8Array} bytes */
function sha256Of(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The bytes git writes for a command (a blob), or undefined when it fails.
 * @param {string[]} args
 * @param {string} cwd
 * @returns {Promise<Buffer | undefined>}
 */
export function gitBytes(args, cwd) {
  return new Promise((done) => {
    execFile(
      'git',
      args,
      { cwd, encoding: 'buffer', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => done(error ? undefined : stdout),
    );
  });
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

const deniedPattern =
  /\b403\b|\b401\b|permission|denied|not allowed|protected branch|authentication failed|could not read username|unable to access|forbidden/i;

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
    const moved =
      /rejected|fetch first|non-fast-forward/i.test(text) && !/protected branch|pre-receive hook declined/i.test(text);
    if (!moved) throw new PushDeniedError(text);
    if (attempt >= 3)
      throw new Error(`the branch ${branch} kept moving: the push was refused ${attempt} times\n${text}`);
    await must(git(['fetch', '--quiet', remote, `refs/heads/${branch}`], { cwd }), 'git fetch');
    const rebase = await git(['rebase', 'FETCH_HEAD'], { cwd, env });
    if (rebase.code !== 0) {
      await git(['rebase', '--abort'], { cwd });
      throw new Error(
        `the generated files conflict with what was pushed to ${branch} meanwhile: ${rebase.stderr.trim() || rebase.stdout.trim()}`,
      );
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
