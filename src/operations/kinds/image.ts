import { dirname, join, relative, resolve } from 'node:path';
import type { ImageClient } from '../../api/imagegen.js';
import type { ApplyServices } from '../../apply/kind.js';
import { sha256 } from '../../apply/kinds/image.js';
import { AppError } from '../../errors.js';
import { LOCK_FILE } from '../../model/index.js';
import type { Plan } from '../../plan/index.js';
import { hashOf, inspectFile, regularFileHash } from '../images/local-files.js';
import { readLockOrThrow } from '../images/lock-file.js';
import { readImageState } from '../images/state.js';
import { createImageStore } from '../images/store.js';
import type { KindOperations } from './kind.js';

/**
 * Images: the local side (the lock beside the desired-state file, and the image files) is
 * read to plan, and read again to check a saved plan: a lock or a file that changed since
 * makes it stale, since its decisions were made from them.
 */
export const imageSource: KindOperations<'image'> = {
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
    const hashes = await Promise.all(
      recorded.files.map(async ({ path }) => [path, hashOf(await inspectFile(dir, path, false))] as const),
    );
    return { images: { lockHash: lock === undefined ? null : sha256(lock), files: Object.fromEntries(hashes) } };
  },
  saving: (plan, { cwd, planFile }) => {
    if (plan.imageDir === undefined || plan.imageHome === undefined) return plan;
    return {
      ...plan,
      imageHome: { ...plan.imageHome, fromPlan: relative(dirname(planFile), resolve(cwd, plan.imageDir)) || '.' },
    };
  },
  placing: async (plan, { cwd, planFile }) => {
    if (plan.imageDir === undefined || plan.imageHome === undefined) return plan;
    const dir = await homeOf(plan, plan.imageDir, plan.imageHome, cwd, planFile);
    return { ...plan, imageDir: relative(cwd, dir) || '.' };
  },
  applyServices: (plan, { services, cwd, concurrency }) => {
    const images = imageServices(plan, services?.images, cwd, concurrency);
    return images ? { images } : {};
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
async function homeOf(
  plan: Plan,
  imageDir: string,
  home: NonNullable<Plan['imageHome']>,
  cwd: string,
  planFile: string,
): Promise<string> {
  const candidates = [
    ...(home.fromPlan === undefined ? [] : [resolve(dirname(planFile), home.fromPlan)]),
    resolve(cwd, imageDir),
  ];
  const found = await Promise.all(
    candidates.map(async (dir) => ({ dir, hash: await regularFileHash(join(dir, home.file)) })),
  );
  const chosen =
    found.find((candidate) => candidate.hash === plan.fingerprint.desiredHash) ??
    found.find((candidate) => candidate.hash !== undefined);
  if (chosen) return chosen.dir;
  const looked = [...new Set(candidates.map((dir) => join(relative(cwd, dir) || '.', home.file)))];
  throw new AppError({
    code: 'PLAN_FILES_NOT_FOUND',
    source: 'user',
    summary: `the saved plan writes images and ${LOCK_FILE} beside ${home.file}, the file it was made from, which is not found (looked for ${looked.join(' and ')})`,
    hint: 'apply the plan from the folder it was made in, or keep it where `plan --out` saved it; nothing was changed',
  });
}

/** Generations in flight at once: each is heavy for the service, so fewer than other requests. */
const IMAGE_CONCURRENCY = 4;

/**
 * What applying images needs, when the plan has image changes: the plan's image folder, and
 * the image service when it generates (its address and key are checked here, before anything
 * is changed, so a missing one cannot stop an apply halfway; removing needs no service).
 */
function imageServices(
  plan: Plan,
  client: (() => ImageClient) | undefined,
  cwd: string,
  concurrency: number | undefined,
): ApplyServices['images'] {
  if (!plan.changes.some((change) => change.kind === 'image')) return undefined;
  const generates = plan.changes.some((change) => change.action === 'generate');
  if (generates && !client)
    throw new AppError({
      code: 'NO_SERVICE',
      source: 'internal',
      summary: 'the plan generates images, but no image-generation client was given',
    });
  return {
    ...(generates && client ? { client: client() } : {}),
    store: createImageStore(resolve(cwd, plan.imageDir ?? '.'), join(plan.imageDir ?? '.', LOCK_FILE)),
    concurrency: Math.min(concurrency ?? IMAGE_CONCURRENCY, IMAGE_CONCURRENCY),
  };
}
