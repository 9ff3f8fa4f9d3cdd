// Running the `audiences` command from a pipeline script, and the comment it writes.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The command of this checkout (the Action's own install, or node_modules/audiences). */
const BIN = fileURLToPath(new URL('../../bin/audiences.js', import.meta.url));

/** The default desired-state file, as the command reads it when given none. */
export const DEFAULT_FILE = 'audiences.yaml';

/**
 * Runs `audiences ARGS…`: stdout captured (and with `echo` passed on to the job log too), stderr
 * both captured and passed on.
 * @param {string[]} args
 * @param {{ cwd: string, env?: NodeJS.ProcessEnv, echo?: boolean }} options
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
export function runTool(args, { cwd, env = process.env, echo = false }) {
  // The tool needs the services' settings, not the pipeline's own tokens.
  const toolEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !PIPELINE_TOKENS.includes(name)));
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [process.env.AUDIENCES_BIN || BIN, ...args], {
      cwd,
      env: { NO_COLOR: '1', ...toolEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text) => {
      stdout += text;
      if (echo) process.stdout.write(text);
    });
    child.stderr.setEncoding('utf8').on('data', (text) => {
      stderr += text;
      process.stderr.write(text);
    });
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code: code ?? (signal ? 1 : 0), stdout, stderr }));
  });
}

/**
 * The files a pipeline names, from an input or a variable: separated by spaces, commas or lines.
 * @param {string | undefined} text
 */
export function parseFiles(text) {
  return (text ?? '')
    .split(/[\s,]+/)
    .map((file) => file.trim())
    .filter(Boolean);
}

/**
 * The hidden first line of the comment `audiences plan --format markdown` writes for these
 * files, as the command spells it: a fallback comment (when the command wrote none) carries the
 * same line, so it replaces the same comment.
 * @param {string[]} files
 */
export function commentMarker(files) {
  const named = (files.length === 0 ? [DEFAULT_FILE] : files).map((file) =>
    encodeURIComponent(file).replace(/%2F/g, '/'),
  );
  return `<!-- audiences-plan files=${named.join(',')} -->`;
}

/**
 * @param {string} body
 */
export function firstLine(body) {
  return (
    String(body ?? '')
      .split('\n', 1)[0]
      ?.replace(/\r$/, '') ?? ''
  );
}

/** What a comment must start with to be one of ours. */
export const MARKER_PREFIX = '<!-- audiences-';

/**
 * The comment to post for a run of the plan: the command's own Markdown when it wrote it
 * (its first line is the marker), else a short comment with the same marker that says the
 * plan failed, with the end of the command's error output and where the log is.
 * @param {{ stdout: string, stderr: string, code: number, files: string[], commit?: string, logUrl?: string }} run
 */
export function planComment({ stdout, stderr, code, files, commit, logUrl }) {
  if (stdout.startsWith('<!-- audiences-plan ')) return stdout;
  const lines = [commentMarker(files), '## audiences plan', ''];
  if (commit) lines.push(`Planned at commit ${commit}.`, '');
  lines.push(`:x: **The plan failed** (exit code ${code}) before it could write its comment.`, '');
  const tail = redact(stderr).trim().split('\n').slice(-40).join('\n').slice(-4000);
  if (tail) lines.push('```text', tail.replace(/```/g, "'''"), '```', '');
  if (logUrl) lines.push(`See [the job's log](${logUrl}).`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** The pipeline's own tokens, which the tool is not given. */
const PIPELINE_TOKENS = [
  'GITHUB_TOKEN',
  'INPUT_GITHUB_TOKEN',
  'AUDIENCES_GITLAB_TOKEN',
  'AUDIENCES_PUSH_TOKEN',
  'CI_JOB_TOKEN',
];

/** The variables whose values must never be posted anywhere. */
const SECRET_VARIABLES = ['ADS_ACCESS_TOKEN', 'IMAGEGEN_API_KEY', ...PIPELINE_TOKENS];

/**
 * Text to post, with the value of every secret variable replaced (the command never prints
 * one; this guards what a crash or another program might).
 * @param {string} text
 */
export function redact(text) {
  let out = String(text);
  for (const name of SECRET_VARIABLES) {
    const value = process.env[name];
    if (value && value.length >= 4) out = out.split(value).join('***');
  }
  return out.replace(/(\/\/[^/\s:@]+:)[^@\s/]+@/g, '$1***@');
}

/**
 * SHA-256 of a file's bytes, or null when it does not exist.
 * @param {string} path
 */
export async function fileHash(path) {
  try {
    return createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * The desired-state files a pipeline plans, each with the hash of its content: what the saved
 * plan's manifest records, and what an apply compares with the files it was merged with.
 * @param {string[]} files
 * @param {string} cwd
 */
export async function hashFiles(files, cwd) {
  const named = files.length === 0 ? [DEFAULT_FILE] : files;
  return Promise.all(named.map(async (file) => ({ path: file, sha256: await fileHash(resolve(cwd, file)) })));
}

/**
 * Whether any of the files declares images or has a lock beside it: only then can an apply
 * write files that must be committed back.
 * @param {string[]} files
 * @param {string} cwd
 */
export async function declaresImages(files, cwd) {
  for (const file of files.length === 0 ? [DEFAULT_FILE] : files) {
    const text = await readFile(resolve(cwd, file), 'utf8').catch(() => '');
    const lock = await stat(join(dirname(resolve(cwd, file)), 'images.lock.json')).then(
      () => true,
      () => false,
    );
    if (/^images\s*:/m.test(text) || lock) return true;
  }
  return false;
}
