// The image preview of a pull or merge request: its new and changed images generated in the
// job's checkout (`audiences apply --kind image`), committed to the request's branch with
// images.lock.json, so that the merge finds them present and locked and generates none; and,
// for the comment, the image files the change adds, changes or removes, at the base and the head,
// which the comment shows (`--preview`, see docs/commands.md).
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import {
  changedPaths,
  checkPush,
  commitAndPush,
  git,
  imagePaths,
  lockOutputs,
  LOCK_FILE,
  PushDeniedError,
} from './commit-back.mjs';
import { declaresImages, DEFAULT_FILE, runTool } from './tool.mjs';

/** The file the comment's preview data is written to, beside the saved plan (the apply's summary shows it too). */
export const PREVIEW_FILE = 'audiences.preview.json';

/**
 * Whether to preview: the input or variable says true or false; auto (the default) previews
 * when the files declare images or have a lock.
 * @param {string | undefined} setting
 * @param {string[]} files
 * @param {string} cwd
 * @returns {Promise<boolean>}
 */
export async function previewWanted(setting, files, cwd) {
  const value = (setting || 'auto').trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value !== 'auto') throw new Error(`the image preview setting is "${setting}": use auto, true or false`);
  return declaresImages(files, cwd);
}

/**
 * Generates what the files' images need, as the merge's apply would: new and changed images,
 * moves and, with pruneImages, removals. Each generation the tool started is one image request
 * (its progress line: ok, FAILED or UNKNOWN; a skipped one made none).
 * @param {{ files: string[], cwd: string }} options
 */
export async function generatePreviews({ files, cwd }) {
  const run = await runTool(['apply', '--kind', 'image', '--auto-approve', ...files.flatMap((file) => ['-f', file])], {
    cwd,
    echo: true,
  });
  const requests = `${run.stdout}\n${run.stderr}`
    .split('\n')
    .filter((line) => /^(ok|FAILED|UNKNOWN)\s+generate image /.test(line)).length;
  return { code: run.code, requests };
}

/**
 * @typedef {object} PreviewResult what a preview did, as the comment's data says it (see writePreview)
 * @property {number} requests the image requests it made
 * @property {string | null} commit the commit it pushed to the branch; null when it pushed none
 * @property {'fork' | 'read-only' | 'push-refused'} [notCommitted] why the images it made are not on the branch
 * @property {string} [artifact] then, the artifact that keeps them
 * @property {string} [why] then, the reason in words, for the job's log
 */

/**
 * The preview of a request whose last commit is checked out (`at`): the images the files need
 * generated and, when any file changed, committed with images.lock.json and pushed to its
 * branch (`push`). Where that cannot be (`push.fork`, a remote that refuses, none at all), the
 * files go to `keepDir` for the job's artifact and the checkout is put back as `at` holds it, so
 * that the plan shows them still to generate, as the merge will. Undefined when the generation
 * failed before making anything: the plan then says what the merge generates.
 * @param {{ files: string[], cwd: string, at: string, keepDir: string, artifact: string,
 *   push: { fork: string | undefined, remote: string | undefined, noRemote: string, branch: string, message: string,
 *     author: { name: string, email: string }, pushOptions?: string[] } }} options
 *   push.fork: the fork's name when the request comes from one; push.noRemote: why there is no remote, if none
 * @returns {Promise<PreviewResult | undefined>}
 */
export async function previewOnBranch({ files, cwd, at, keepDir, artifact, push }) {
  const generated = await generatePreviews({ files, cwd });
  const changed = await changedPaths(await imagePaths(files, cwd), cwd);
  if (changed.length === 0 && generated.code !== 0) return undefined;
  const result = { requests: generated.requests, commit: null };
  if (changed.length === 0) return result;
  const keep = async (/** @type {'fork' | 'read-only' | 'push-refused'} */ notCommitted, /** @type {string} */ why) => {
    await keepAndRestore({ paths: changed, cwd, at, dir: keepDir });
    return { ...result, notCommitted, artifact, why };
  };
  if (push.fork !== undefined) return keep('fork', `the request comes from the fork ${push.fork}`);
  if (push.remote === undefined) return keep('read-only', push.noRemote);
  try {
    await checkPush({ cwd, remote: push.remote, branch: push.branch });
  } catch (error) {
    if (!(error instanceof PushDeniedError)) throw error;
    return keep('read-only', `the token cannot push to ${push.branch}\n${error.message}`);
  }
  try {
    const pushed = await commitAndPush({
      cwd,
      paths: changed,
      remote: push.remote,
      branch: push.branch,
      message: push.message,
      author: push.author,
      pushOptions: push.pushOptions ?? [],
    });
    return { ...result, commit: pushed?.commit ?? null };
  } catch (error) {
    return keep('push-refused', `the push to ${push.branch} failed\n${/** @type {Error} */ (error).message}`);
  }
}

/**
 * The image files of each image whose lock entry differs between the base and the checkout
 * (new, changed or removed), on each side: what the comment can show. Paths are relative to cwd.
 * @param {{ files: string[], cwd: string, base: string | undefined }} options
 * @returns {Promise<Array<{ side: 'head' | 'base', image: string, path: string, sha256: string }>>}
 */
export async function changedImageFiles({ files, cwd, base }) {
  /** @type {Array<{ side: 'head' | 'base', image: string, path: string, sha256: string }>} */
  const found = [];
  for (const file of files.length === 0 ? [DEFAULT_FILE] : files) {
    const dir = dirname(file).split('\\').join('/');
    const lock = posix.join(dir, LOCK_FILE);
    const headText = await readFile(join(cwd, lock), 'utf8').catch(() => undefined);
    const baseRead = base ? await git(['show', `${base}:./${lock}`], { cwd }) : undefined;
    const baseText = baseRead?.code === 0 ? baseRead.stdout : undefined;
    const [head, before] = [entries(headText), entries(baseText)];
    const changed = new Set([...head.keys(), ...before.keys()].filter((name) => head.get(name) !== before.get(name)));
    for (const output of lockOutputs(headText, dir))
      if (changed.has(output.image)) found.push({ side: 'head', ...output });
    for (const output of lockOutputs(baseText, dir))
      if (changed.has(output.image)) found.push({ side: 'base', ...output });
  }
  return found;
}

/**
 * Each lock entry as JSON text, by name: two sides' entries are the same when their text is.
 * @param {string | undefined} text
 */
function entries(text) {
  try {
    const images = JSON.parse(text ?? '')?.images;
    return new Map(
      typeof images === 'object' && images !== null
        ? Object.entries(images).map(([name, entry]) => [name, JSON.stringify(entry)])
        : [],
    );
  } catch {
    return new Map();
  }
}

/**
 * Puts the generated files where the job's artifact step uploads them, then gives the paths
 * back as the commit `at` holds them: the plan then shows the images still to generate, as the
 * merge will, and no saved plan records files the branch does not hold.
 * @param {{ paths: string[], cwd: string, at: string, dir: string }} options
 */
export async function keepAndRestore({ paths, cwd, at, dir }) {
  await rm(dir, { recursive: true, force: true });
  for (const path of paths) {
    const bytes = await readFile(resolve(cwd, path)).catch(() => undefined);
    if (bytes === undefined) continue;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await copyFile(resolve(cwd, path), join(dir, path));
  }
  await git(['reset', '--quiet', '--soft', at], { cwd });
  for (const path of paths) {
    const held = (await git(['cat-file', '-e', `${at}:./${path}`], { cwd })).code === 0;
    if (held) await git(['checkout', '--quiet', at, '--', `./${path}`], { cwd });
    else {
      await git(['rm', '--quiet', '--cached', '--ignore-unmatch', '--', `./${path}`], { cwd });
      await rm(resolve(cwd, path), { force: true });
    }
  }
}

/**
 * Writes the comment's preview data (see docs/commands.md, `--preview`) to `path`.
 * @param {string} path
 * @param {{ requests: number, commit: string | null, notCommitted?: string, artifact?: string, urls: Record<string, string> }} preview
 */
export async function writePreview(path, preview) {
  await writeFile(path, `${JSON.stringify(preview, null, 2)}\n`);
  return path;
}

/**
 * What the apply of a reviewed plan does with the images of the pull request's preview: it
 * generates none (the branch holds them all, locked), or what the plan still does, as the
 * comment said (the preview could not commit them). Undefined when the request had no preview.
 * @param {string} text a saved plan: one plan or an array of them
 * @param {string | undefined} previewText the preview's data, beside the saved plan
 * @param {string} request how the request is called: pull request, merge request
 */
export function reviewedImages(text, previewText, request) {
  if (previewText === undefined) return undefined;
  const data = JSON.parse(text);
  const generates = (Array.isArray(data) ? data : [data])
    .flatMap((plan) => plan.changes ?? [])
    .filter((/** @type {any} */ change) => change.action === 'generate').length;
  if (generates === 0) return `0 images generated: all were reviewed in the ${request}.`;
  const why = JSON.parse(previewText).notCommitted
    ? 'its preview could not commit them'
    : 'its preview did not make them';
  return `${generates} image${generates === 1 ? '' : 's'} to generate now, not reviewed as pictures in the ${request}: ${why} (its comment says so).`;
}
