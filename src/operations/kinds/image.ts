import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ImageClient } from '../../api/imagegen.js';
import type { ApplyServices } from '../../apply/kind.js';
import { sha256, type ImageStore } from '../../apply/kinds/image.js';
import { emptyImageLock, parseImageLock, renderImageLock } from '../../config/image-lock.js';
import { projectPathProblem } from '../../config/image-rules.js';
import { AppError } from '../../errors.js';
import { writeFileAtomically } from '../files.js';
import { detectImageFormat, dictionary, IMAGE_INPUT_FIELDS, IMAGE_LOCK_HINT, LOCK_FILE, own, type DesiredState, type ImageState, type LocalFile, type LockedOutput } from '../../model/index.js';
import type { Plan } from '../../plan/index.js';
import type { KindOperations } from './kind.js';

/**
 * Images: the local side (the lock beside the desired-state file, and the image files) is
 * read to plan, and read again to check a saved plan: a lock or a file that changed since
 * makes it stale, since its decisions were made from them.
 */
export const imageSource: KindOperations = {
  kind: 'image',
  read: async (desired, { file, cwd }) => {
    const images = file === undefined || cwd === undefined ? undefined : await readImageState(desired, file, cwd);
    return images ? { images } : {};
  },
  readCurrent: async (plan, { cwd }) => {
    const recorded = plan.fingerprint.images;
    if (!recorded || cwd === undefined) return {};
    const dir = resolve(cwd, plan.imageDir ?? '.');
    const lock = await readLockOrThrow(dir, join(plan.imageDir ?? '.', LOCK_FILE));
    const hashes = await Promise.all(recorded.files.map(async ({ path }) => [path, hashOf(await inspectFile(dir, path, false))] as const));
    return { images: { lockHash: lock === undefined ? null : sha256(lock), files: Object.fromEntries(hashes) } };
  },
  saving: (plan, { cwd, planFile }) => {
    if (plan.imageDir === undefined || plan.imageHome === undefined) return plan;
    return { ...plan, imageHome: { ...plan.imageHome, fromPlan: relative(dirname(planFile), resolve(cwd, plan.imageDir)) || '.' } };
  },
  placing: async (plan, { cwd, planFile }) => {
    if (plan.imageDir === undefined || plan.imageHome === undefined) return plan;
    const dir = await homeOf(plan, plan.imageDir, plan.imageHome, cwd, planFile);
    return { ...plan, imageDir: relative(cwd, dir) || '.' };
  },
  applyServices: (plan, { images, cwd, concurrency }) => {
    const services = imageServices(plan, images, cwd, concurrency);
    return services ? { images: services } : {};
  },
};

/**
 * The folder a saved plan's images and lock go to, wherever it is applied: the one that holds
 * the desired-state file the plan was made from. Looked for from the saved plan's folder first
 * (the folder it was made in, as seen when it was saved: applied from another folder, on the
 * same machine), then from the folder it is applied in (as it was made: a pipeline applies a
 * plan downloaded elsewhere in a fresh checkout). A file with the bytes the plan was made from
 * wins; else one of that name. None found, the plan is refused: its images would be written
 * where no file of the project is.
 */
async function homeOf(plan: Plan, imageDir: string, home: NonNullable<Plan['imageHome']>, cwd: string, planFile: string): Promise<string> {
  const candidates = [...(home.fromPlan === undefined ? [] : [resolve(dirname(planFile), home.fromPlan)]), resolve(cwd, imageDir)];
  const found = await Promise.all(candidates.map(async (dir) => ({ dir, hash: await regularFileHash(join(dir, home.file)) })));
  const chosen = found.find((candidate) => candidate.hash === plan.fingerprint.desiredHash) ?? found.find((candidate) => candidate.hash !== undefined);
  if (chosen) return chosen.dir;
  const looked = [...new Set(candidates.map((dir) => join(relative(cwd, dir) || '.', home.file)))];
  throw new AppError({
    code: 'PLAN_FILES_NOT_FOUND',
    source: 'user',
    summary: `the saved plan writes images and ${LOCK_FILE} beside ${home.file}, the file it was made from, which is not found (looked for ${looked.join(' and ')})`,
    hint: 'apply the plan from the folder it was made in, or keep it where `plan --out` saved it; nothing was changed',
  });
}

/** The SHA-256 of a regular file, or undefined when there is none (a folder, a link that leads nowhere, nothing). */
async function regularFileHash(path: string): Promise<string | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return sha256(await readFile(path));
  } catch {
    return undefined;
  }
}

/** Generations in flight at once: each is heavy for the service, so fewer than other requests. */
const IMAGE_CONCURRENCY = 4;

/**
 * The local side of a file's images, for planning: the lock beside the file and every image
 * file the plan needs (outputs, where the lock records them, local inputs with their real
 * format and size, and with pruneImages the files of each locked image no longer declared,
 * which a removal would delete). Nothing when the file declares no images and has no lock. Paths that lead out of
 * the file's folder, through `..` or a link, are refused rather than read; so is the lock.
 */
async function readImageState(desired: DesiredState, file: string, cwd: string): Promise<ImageState | undefined> {
  const dir = dirname(resolve(cwd, file));
  const lockRead = await readLock(dir);
  if (!desired.images && lockRead === undefined) return undefined;

  const state: ImageState = { dir: relative(cwd, dir) || '.', file: basename(file), lock: emptyImageLock(), lockHash: null, files: dictionary() };
  if (lockRead !== undefined && 'refused' in lockRead) state.lockProblem = lockRead.refused;
  else if (lockRead !== undefined) {
    state.lockHash = sha256(lockRead);
    const parsed = parseImageLock(new TextDecoder().decode(lockRead));
    if ('problem' in parsed) state.lockProblem = parsed.problem;
    else state.lock = parsed;
  }
  const inspections: Array<Promise<void>> = [];
  const inspect = (path: string, input: boolean): void => {
    if (own(state.files, path)) return;
    state.files[path] = { status: 'absent' };
    inspections.push(inspectFile(dir, path, input).then((found) => void (state.files[path] = found)));
  };
  for (const image of desired.images ?? []) {
    for (const output of image.outputs) inspect(output, false);
    for (const field of IMAGE_INPUT_FIELDS) {
      const input = image.inputs[field];
      if (input && 'file' in input) inspect(input.file, true);
    }
    // Where the lock records its files: a moved output is copied from there (and, with pruneImages, deleted).
    for (const output of own(state.lock.images, image.key)?.outputs ?? []) inspect(output.path, false);
  }
  if (desired.pruneImages) {
    const declared = new Set((desired.images ?? []).map((image) => image.key));
    const removed = Object.entries(state.lock.images).filter(([name]) => !declared.has(name));
    for (const [, locked] of removed) for (const output of locked.outputs) inspect(output.path, false);
  }
  await Promise.all(inspections);
  return state;
}

/**
 * The store the image applier writes through: paths checked again at write time, files and
 * lock written atomically, files removed only once each is checked again as the plan saw it.
 */
function createImageStore(dir: string, shownLock: string): ImageStore {
  const lockPath = join(dir, LOCK_FILE);
  let lockWrites: Promise<unknown> = Promise.resolve();
  return {
    read: async (path) => readFile(await inside(dir, path)),
    write: async (files) => {
      for (const file of files) {
        await mkdir(dirname(await inside(dir, file.path)), { recursive: true });
        // Checked again once the folders exist: a link made in the meantime must not redirect the write.
        await writeFileAtomically(await inside(dir, file.path), file.bytes);
      }
    },
    remove: async (files) => {
      const changed = (await Promise.all(files.map((file) => removalProblem(dir, file)))).filter((problem) => problem !== undefined);
      if (changed.length > 0) return changed.join('; ');
      // Each file's folder, its links resolved again right before the unlinks: a folder swapped
      // for a link since the check must not lead an unlink out of the project.
      const parents = await Promise.all(files.map((file) => realParent(dir, file.path)));
      const left = files.flatMap((file, index) => {
        const parent = parents[index];
        return parent !== undefined && 'refused' in parent ? [`${file.path}: ${parent.refused}`] : [];
      });
      if (left.length > 0) return left.join('; ');
      for (const [index, file] of files.entries()) {
        const parent = parents[index];
        if (parent === undefined || 'refused' in parent) continue;
        try {
          // unlink removes the path itself: were a link put there since the check, what it leads to would stay.
          await unlink(join(parent.real, basename(file.path)));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      return undefined;
    },
    record: (name, entry) => {
      // One lock update at a time: each reads the lock the previous one wrote.
      const update = lockWrites.then(async () => {
        const bytes = await readLockOrThrow(dir, shownLock);
        const parsed = bytes === undefined ? emptyImageLock() : parseImageLock(new TextDecoder().decode(bytes));
        // A lock that became unreadable since the plan is kept as it is, not replaced by one that forgets every image.
        if ('problem' in parsed) throw lockError(shownLock, parsed.problem);
        if (entry === null) delete parsed.images[name];
        else parsed.images[name] = entry;
        await writeFileAtomically(lockPath, new TextEncoder().encode(renderImageLock(parsed)));
      });
      lockWrites = update.catch(() => undefined);
      return update;
    },
  };
}

/**
 * Why a file the plan deletes must not be deleted now: it leads out of the project, became a
 * link or something else than a file, its bytes are no longer the recorded ones, or they are
 * not an image (the tool writes only images; planning requires it too, and a saved plan may
 * have been edited). A file already gone is no reason: there is nothing to delete.
 */
async function removalProblem(dir: string, file: LockedOutput): Promise<string | undefined> {
  const refused = await outsideReason(dir, file.path);
  if (refused !== undefined) return `${file.path}: ${refused}`;
  const absolute = resolve(dir, file.path);
  try {
    const info = await lstat(absolute);
    if (info.isSymbolicLink()) return `${file.path} is now a link`;
    if (!info.isFile()) return `${file.path} is no longer a regular file`;
    const bytes = await readFile(absolute);
    if (sha256(bytes) !== file.sha256) return `${file.path} changed since the plan was made`;
    if (detectImageFormat(bytes) === undefined) return `${file.path} is not an image (by its content), and the tool writes only images`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${file.path}: ${(error as Error).message}`;
  }
  return undefined;
}

/**
 * The lock's bytes (undefined when there is none), read only when it is a regular file in the
 * project: a lock that is a link out of it, or a folder, a FIFO or a device, is refused
 * unread, and the string says why. Should one be put in its place after the check,
 * `O_NONBLOCK` keeps a FIFO from hanging the read and `O_NOFOLLOW` keeps a link from being followed.
 */
async function readLock(dir: string): Promise<Uint8Array | undefined | { refused: string }> {
  const path = join(dir, LOCK_FILE);
  let target = path;
  try {
    if ((await lstat(path)).isSymbolicLink()) {
      const refused = await outsideReason(dir, LOCK_FILE);
      if (refused !== undefined) return { refused: `${refused}; it was not read` };
      target = await realpath(path);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { refused: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  let handle;
  try {
    handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) return { refused: 'it is not a regular file; it was not read' };
    return await handle.readFile();
  } catch (error) {
    return { refused: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  } finally {
    await handle?.close();
  }
}

/** The lock's bytes for a check or an update, which cannot go on when it is refused (`shown`: the lock as the user knows it). */
async function readLockOrThrow(dir: string, shown: string): Promise<Uint8Array | undefined> {
  const read = await readLock(dir);
  if (read !== undefined && 'refused' in read) throw lockError(shown, read.refused);
  return read;
}

function lockError(shown: string, problem: string): AppError {
  return new AppError({ code: 'IMAGE_LOCK', source: 'user', summary: `${shown} cannot be used: ${problem}`, hint: IMAGE_LOCK_HINT });
}

/**
 * The absolute path of a project path, or an error when it leads out of the folder: `..`, an
 * absolute path, or a link (anywhere along the path) whose target is outside.
 */
async function inside(dir: string, path: string): Promise<string> {
  const refused = await outsideReason(dir, path);
  if (refused !== undefined) {
    throw new AppError({ code: 'IMAGE_PATH', source: 'user', summary: `refusing ${path}: ${refused}`, hint: 'keep image files in the folder of the desired-state file or below it' });
  }
  return resolve(dir, path);
}

async function outsideReason(dir: string, path: string): Promise<string | undefined> {
  const lexical = projectPathProblem(path);
  if (lexical) return lexical.message.replace(`${JSON.stringify(path)} `, '');
  const target = resolve(dir, path);
  const root = await realpath(dir);
  // The deepest part of the path that exists, with its links resolved, must be in the folder.
  let existing = target;
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  let real: string;
  try {
    real = await realpath(existing);
  } catch {
    return 'it is a link that leads nowhere';
  }
  return within(root, real) ? undefined : 'it leads out of the project folder through a link';
}

/**
 * The real folder of a project path (its links resolved), when it is still in the project;
 * undefined when it no longer exists (nor does the file), `refused` when it leads out.
 */
async function realParent(dir: string, path: string): Promise<{ real: string } | { refused: string } | undefined> {
  let real: string;
  try {
    real = await realpath(dirname(resolve(dir, path)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { refused: (error as Error).message };
  }
  return within(await realpath(dir), real) ? { real } : { refused: 'it leads out of the project folder through a link' };
}

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function inspectFile(dir: string, path: string, input: boolean): Promise<LocalFile> {
  const refused = await outsideReason(dir, path);
  if (refused !== undefined) return { status: 'refused', reason: refused };
  const absolute = resolve(dir, path);
  let link = false;
  let identity: string;
  try {
    link = (await lstat(absolute)).isSymbolicLink();
    const info = await stat(absolute);
    identity = `${info.dev}:${info.ino}`;
    if (info.isDirectory()) return { status: 'refused', reason: 'it is a folder' };
    // A FIFO would hang the read, and a device is no image.
    if (!info.isFile()) return { status: 'refused', reason: 'it is not a regular file' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' };
    return { status: 'refused', reason: (error as Error).message };
  }
  const bytes = await readFile(absolute);
  const found: LocalFile = { status: 'present', sha256: sha256(bytes), format: detectImageFormat(bytes) ?? (isHeic(bytes) ? 'heic' : null), width: null, height: null, identity };
  if (link) found.link = true;
  if (!input) return found;
  if (found.format !== null) {
    try {
      const { default: sharp } = await import('sharp');
      const metadata = await sharp(bytes).metadata();
      found.width = metadata.width ?? null;
      found.height = metadata.height ?? null;
    } catch {
      // A size that cannot be read is left unknown; the service judges the file itself.
    }
  }
  return found;
}

/** HEIC by its `ftyp` box and an HEVC brand, the way the format is recognised without decoding it. */
function isHeic(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(4, 8)) !== 'ftyp') return false;
  const size = Math.min(bytes.length, ((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0));
  const brands = new TextDecoder().decode(bytes.subarray(8, Math.max(8, size)));
  return /heic|heix|heim|heis|hevc|hevx|hevm|hevs/.test(brands);
}

function hashOf(file: LocalFile): string | null {
  return file.status === 'present' ? file.sha256 : null;
}

/**
 * What applying images needs, when the plan has image changes: the plan's image folder, and
 * the image service when it generates (its address and key are checked here, before anything
 * is changed, so a missing one cannot stop an apply halfway; removing needs no service).
 */
function imageServices(plan: Plan, client: (() => ImageClient) | undefined, cwd: string, concurrency: number | undefined): ApplyServices['images'] {
  if (!plan.changes.some((change) => change.kind === 'image')) return undefined;
  const generates = plan.changes.some((change) => change.action === 'generate');
  if (generates && !client) throw new AppError({ code: 'NO_SERVICE', source: 'internal', summary: 'the plan generates images, but no image-generation client was given' });
  return {
    ...(generates && client ? { client: client() } : {}),
    store: createImageStore(resolve(cwd, plan.imageDir ?? '.'), join(plan.imageDir ?? '.', LOCK_FILE)),
    concurrency: Math.min(concurrency ?? IMAGE_CONCURRENCY, IMAGE_CONCURRENCY),
  };
}
