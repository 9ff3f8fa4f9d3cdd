import { lstat, mkdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ImageClient } from '../../api/imagegen.js';
import type { ApplyServices } from '../../apply/kind.js';
import { sha256, type ImageStore } from '../../apply/kinds/image.js';
import { projectPathProblem } from '../../config/image-rules.js';
import { AppError } from '../../errors.js';
import { writeFileAtomically } from '../files.js';
import { detectImageFormat, dictionary, IMAGE_INPUT_FIELDS, LOCK_FILE, own, type DesiredState, type ImageLock, type ImageState, type LocalFile, type LockedImage } from '../../model/index.js';
import type { Plan } from '../../plan/index.js';
import type { KindOperations } from './kind.js';
import { quoted } from '../../model/index.js';

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
    const lock = await readIfExists(join(dir, LOCK_FILE));
    const hashes = await Promise.all(recorded.files.map(async ({ path }) => [path, hashOf(await inspectFile(dir, path, false))] as const));
    return { images: { lockHash: lock === undefined ? null : sha256(lock), files: Object.fromEntries(hashes) } };
  },
  applyServices: (plan, { images, cwd, concurrency }) => {
    const services = imageServices(plan, images, cwd, concurrency);
    return services ? { images: services } : {};
  },
};

/** Generations in flight at once: each is heavy for the service, so fewer than other requests. */
const IMAGE_CONCURRENCY = 4;

/**
 * The local side of a file's images, for planning: the lock beside the file and every image
 * file the plan needs (outputs, and local inputs with their real format and size). Nothing
 * when the file declares no images and has no lock. Paths that lead out of the file's
 * folder, through `..` or a link, are refused rather than read.
 */
async function readImageState(desired: DesiredState, file: string, cwd: string): Promise<ImageState | undefined> {
  const dir = dirname(resolve(cwd, file));
  const lockBytes = await readIfExists(join(dir, LOCK_FILE));
  if (!desired.images && lockBytes === undefined) return undefined;

  const state: ImageState = { dir: relative(cwd, dir) || '.', lock: emptyLock(), lockHash: null, files: dictionary() };
  if (lockBytes !== undefined) {
    state.lockHash = sha256(lockBytes);
    const parsed = parseLock(lockBytes);
    if (typeof parsed === 'string') state.lockProblem = parsed;
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
  }
  await Promise.all(inspections);
  return state;
}

/** The store the image applier writes through: paths checked again at write time, files and lock written atomically. */
function createImageStore(dir: string): ImageStore {
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
    delete: async (paths) => {
      for (const path of paths) await rm(await inside(dir, path), { force: true });
    },
    record: (name, entry) => {
      // One lock update at a time: each reads the lock the previous one wrote.
      const update = lockWrites.then(async () => {
        const bytes = await readIfExists(lockPath);
        const parsed = bytes === undefined ? emptyLock() : parseLock(bytes);
        const lock = typeof parsed === 'string' ? emptyLock() : parsed;
        if (entry === null) delete lock.images[name];
        else lock.images[name] = entry;
        await writeFileAtomically(lockPath, new TextEncoder().encode(renderLock(lock)));
      });
      lockWrites = update.catch(() => undefined);
      return update;
    },
  };
}

/** The lock as written: images by name, two-space JSON, so its diffs review well. */
function renderLock(lock: ImageLock): string {
  const images = dictionary(
    Object.keys(lock.images)
      .sort()
      .map((name) => [name, lock.images[name] as LockedImage] as const),
  );
  return `${JSON.stringify({ lockVersion: 1, images }, null, 2)}\n`;
}

function emptyLock(): ImageLock {
  return { lockVersion: 1, images: dictionary() };
}

function parseLock(bytes: Uint8Array): ImageLock | string {
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    return `it is not JSON (${(error as Error).message})`;
  }
  const lock = data as Partial<ImageLock> | null;
  if (lock === null || typeof lock !== 'object' || lock.lockVersion !== 1 || lock.images === null || typeof lock.images !== 'object' || Array.isArray(lock.images)) {
    return 'it is not an image lock of version 1';
  }
  for (const [name, entry] of Object.entries(lock.images)) {
    const image = entry as Partial<LockedImage> | null;
    if (!image || !image.request || !Array.isArray(image.seeds) || !Array.isArray(image.outputs) || typeof image.modelVersion !== 'string') return `its entry ${quoted(name)} is incomplete`;
  }
  return { lockVersion: 1, images: dictionary(Object.entries(lock.images as Record<string, LockedImage>)) };
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

function within(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function inspectFile(dir: string, path: string, input: boolean): Promise<LocalFile> {
  const refused = await outsideReason(dir, path);
  if (refused !== undefined) return { status: 'refused', reason: refused };
  const absolute = resolve(dir, path);
  try {
    if ((await stat(absolute)).isDirectory()) return { status: 'refused', reason: 'it is a folder' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' };
    return { status: 'refused', reason: (error as Error).message };
  }
  const bytes = await readFile(absolute);
  const found: LocalFile = { status: 'present', sha256: sha256(bytes), format: null, width: null, height: null };
  if (!input) return found;
  found.format = detectImageFormat(bytes) ?? (isHeic(bytes) ? 'heic' : null);
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

async function readIfExists(path: string): Promise<Uint8Array | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
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
    store: createImageStore(resolve(cwd, plan.imageDir ?? '.')),
    concurrency: Math.min(concurrency ?? IMAGE_CONCURRENCY, IMAGE_CONCURRENCY),
  };
}
