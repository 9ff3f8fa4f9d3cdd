// The image preview of a pull or merge request: its new and changed images generated in the
// job's checkout (`audiences apply --kind image`), committed to the request's branch with
// images.lock.json, so that the merge finds them present and locked and generates none; and,
// for the comment, the image files the change adds, changes or removes, at the base and the head,
// which the comment shows (`--preview`, see docs/commands.md).
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import { git, lockOutputs, LOCK_FILE } from './commit-back.mjs';
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
 * Writes the comment's preview data (see docs/commands.md, `--preview`) into `dir`.
 * @param {string} dir
 * @param {{ requests: number, commit: string | null, notCommitted?: string, artifact?: string, urls: Record<string, string> }} preview
 */
export async function writePreview(dir, preview) {
  const path = join(dir, PREVIEW_FILE);
  await writeFile(path, `${JSON.stringify(preview, null, 2)}\n`);
  return path;
}
