import {
  compareText,
  IMAGE_INPUT_FIELDS,
  IMAGE_PARAM_FIELDS,
  own,
  LOCK_FILE,
  INPAINTING_MAX_SIDE,
  INPUT_FORMATS,
  requestKey,
  type DesiredImage,
  type ImageLock,
  type ImageRequest,
  type ImageState,
  type JsonValue,
  type LocalFile,
  type LockedImage,
  type RecordedInput,
  IMAGE_LOCK_HINT,
} from '../../model/index.js';
import type { PlanKind } from '../kind.js';
import { NOTHING_TO_REVIEW } from '../review.js';
import type {
  FieldChange,
  Fingerprint,
  ImageGenerate,
  ImageGenerateReason,
  ImageMove,
  ImagePreview,
  ImageRemove,
  PlanProblem,
} from '../types.js';
import { quoted } from '../../model/index.js';

/**
 * Generated images, kept reproducible by the lock beside the file. Planned only when the file
 * declares images or a lock exists (the live state then has the local side: see ImageState).
 */
export const imageKind: PlanKind<'image'> = {
  kind: 'image',
  plan: ({ desired, live, options }) => {
    if (!live.images) return { changes: [], errors: [], warnings: [] };
    const { changes, errors, warnings, fingerprint } = planImages(
      desired.images ?? [],
      live.images,
      desired.pruneImages,
    );
    const { dir, file, lockProblem } = live.images;
    const baseLock = options.base?.imageLock;
    const previews = baseLock === undefined || lockProblem !== undefined ? [] : lockChanges(baseLock, live.images.lock);
    return {
      changes,
      errors,
      warnings,
      fingerprint: { images: fingerprint },
      header: {
        imageDir: dir,
        ...(file === undefined ? {} : { imageHome: { file } }),
        ...(previews.length === 0 ? {} : { previews }),
      },
    };
  },
  staleReasons: (plan, current) => {
    const recorded = plan.fingerprint.images;
    if (!recorded || !current.images) return [];
    const now = current.images;
    const reasons = now.lockHash === recorded.lockHash ? [] : [`${LOCK_FILE} changed since the plan was made`];
    for (const { path, sha256: then } of recorded.files) {
      const hash = now.files[path] ?? null;
      if (hash === then) continue;
      reasons.push(
        then === null
          ? `${path} appeared since the plan was made`
          : hash === null
            ? `${path} was deleted since the plan was made`
            : `${path} changed since the plan was made`,
      );
    }
    return reasons;
  },
  // A generation shows the fields of its request that changed; a move or a removal, none.
  review: (change) =>
    change.action === 'generate'
      ? { ...NOTHING_TO_REVIEW, fields: change.display.fields.map((field) => field.field) }
      : NOTHING_TO_REVIEW,
  inconsistencies: (change) =>
    imageInconsistencies(change).map((problem) => `the ${change.action} of image ${quoted(change.name)}: ${problem}`),
};

/**
 * The images a change under review adds, changes or removes, told from the lock at its base and the lock it holds, by
 * name: what a reviewer is shown as pictures. An entry whose request, seeds and files are the same is no change.
 */
export function lockChanges(base: ImageLock | null, head: ImageLock): ImagePreview[] {
  const names = [...new Set([...Object.keys(base?.images ?? {}), ...Object.keys(head.images)])].sort(compareText);
  return names.flatMap((name): ImagePreview[] => {
    const before = base ? (own(base.images, name) ?? null) : null;
    const after = own(head.images, name) ?? null;
    if (before && after && sameLocked(before, after)) return [];
    return [{ name, status: before === null ? 'new' : after === null ? 'removed' : 'changed', before, after }];
  });
}

function sameLocked(a: LockedImage, b: LockedImage): boolean {
  return (
    a.requestHash === b.requestHash &&
    requestKey(a.request) === requestKey(b.request) &&
    JSON.stringify(a.seeds) === JSON.stringify(b.seeds) &&
    JSON.stringify(a.outputs) === JSON.stringify(b.outputs)
  );
}

/** A removal or a move copies and deletes only the files its lock entry records, each to the path at its place. */
function imageInconsistencies(change: ImageGenerate | ImageMove | ImageRemove): string[] {
  const found: string[] = [];
  switch (change.action) {
    case 'remove': {
      const recorded = new Set(change.before.outputs.map((output) => output.path));
      const unrecorded = change.deletes.filter((path) => !recorded.has(path));
      if (unrecorded.length > 0)
        found.push(
          `it deletes ${unrecorded.map((path) => JSON.stringify(path)).join(', ')}, which its lock entry does not record`,
        );
      break;
    }
    case 'move': {
      const { before, after } = change;
      if (after.outputs.length !== before.outputs.length)
        found.push(`it moves ${before.outputs.length} files to ${after.outputs.length} paths`);
      for (const { from, to } of change.copies) {
        const index = before.outputs.findIndex((output) => output.path === from);
        if (index < 0 || after.outputs[index] !== to)
          found.push(
            `it copies ${JSON.stringify(from)} to ${JSON.stringify(to)}, which its lock entry does not move there`,
          );
      }
      const recorded = new Set(before.outputs.map((output) => output.path));
      const unrecorded = change.deletes.filter((path) => !recorded.has(path) || after.outputs.includes(path));
      if (unrecorded.length > 0)
        found.push(
          `it deletes ${unrecorded.map((path) => JSON.stringify(path)).join(', ')}, which is not an old file of its lock entry`,
        );
      break;
    }
    case 'generate':
      break;
  }
  return found;
}

export interface ImagePlan {
  /** Generates and moves in dependency order (a source before the images made from it), then removes by name. */
  changes: Array<ImageGenerate | ImageMove | ImageRemove>;
  errors: PlanProblem[];
  /** A file of a removed or moved image left alone, one each (IMAGE_LEFT_ALONE). */
  warnings: PlanProblem[];
  fingerprint: NonNullable<Fingerprint['images']>;
}

/** Regenerating with these reasons gives new content; the others bring back the locked files exactly. */
const NEW_CONTENT: readonly ImageGenerateReason[] = ['new', 'request-changed', 'input-regenerated'];

/**
 * Declared images against the lock and the files on disk, as a pure function. An image is
 * generated when it is new, its request (parameters and the inputs' content) changed, or a
 * file is missing or altered; in the last two cases with the locked seeds, so the files come
 * back as they were. An image whose `output` moved, its request the same, is moved: its files
 * are copied from where the lock records them when they still hold the locked bytes (nothing
 * is generated), and with prune its old files go as a removal's would. With prune, a locked
 * image no longer declared is removed: its lock entry, and of its files only those the tool
 * wrote (see leftAloneReason). Inputs are checked here, before any call: they exist, their
 * real format is one the operation takes, and inpainting's stay within 1024 pixels a side.
 */
export function planImages(desired: DesiredImage[], state: ImageState, prune: boolean): ImagePlan {
  const fingerprint = {
    lockHash: state.lockHash,
    files: Object.entries(state.files)
      .map(([path, file]) => ({ path, sha256: file.status === 'present' ? file.sha256 : null }))
      .sort((a, b) => compareText(a.path, b.path)),
  };
  if (state.lockProblem !== undefined) {
    const lock = state.dir === '.' ? LOCK_FILE : `${state.dir}/${LOCK_FILE}`;
    return {
      changes: [],
      errors: [
        {
          code: 'IMAGE_LOCK',
          message: `${lock} cannot be used: ${state.lockProblem}`,
          hint: state.lockHint ?? IMAGE_LOCK_HINT,
        },
      ],
      warnings: [],
      fingerprint,
    };
  }

  const errors: PlanProblem[] = [];
  const warnings: PlanProblem[] = [];
  const changes: Array<ImageGenerate | ImageMove | ImageRemove> = [];
  const regenerated = new Map<string, ImageGenerateReason>();
  const byName = new Map(desired.map((image) => [image.key, image]));
  const uses = declaredUses(desired);
  const written = writtenByTheTool(state);
  for (const image of dependencyOrder(desired)) {
    errors.push(...fileProblems(image, state));
    const request: ImageRequest = {
      operation: image.operation,
      params: image.params,
      inputs: recordInputs(image, byName, state, regenerated),
    };
    const locked = own(state.lock.images, image.key);
    const decision = decide(image, request, locked, state);
    if (!decision) continue;
    errors.push(
      ...inTheWay(
        image,
        'copies' in decision ? decision.copies.map((copy) => copy.to) : image.outputs,
        locked,
        state,
        written,
      ),
    );
    if ('copies' in decision) {
      const { deletes, leftAlone } = prune
        ? oldFiles(image, decision.locked, state, uses)
        : { deletes: [], leftAlone: [] };
      warnings.push(
        ...leftAlone.map(({ path, reason }) =>
          leftAloneWarning(image.key, `is moved, but its old file ${path} is left alone: ${reason}`),
        ),
      );
      changes.push({
        action: 'move',
        kind: 'image',
        name: image.key,
        id: null,
        before: decision.locked,
        after: { outputs: image.outputs },
        copies: decision.copies,
        deletes,
      });
      continue;
    }
    regenerated.set(image.key, decision.reason);
    changes.push({
      action: 'generate',
      kind: 'image',
      name: image.key,
      id: null,
      before: locked ?? null,
      after: { request, seeds: decision.seeds, outputs: image.outputs },
      display: {
        reason: decision.reason,
        fields: decision.reason === 'request-changed' && locked ? requestFields(locked.request, request) : [],
      },
    });
  }

  if (prune) {
    for (const name of Object.keys(state.lock.images).sort(compareText)) {
      const locked = own(state.lock.images, name);
      if (!locked || byName.has(name)) continue;
      const deletes: string[] = [];
      for (const { path, sha256 } of locked.outputs) {
        const reason = leftAloneReason(own(state.files, path), sha256, uses.get(path));
        if (reason === undefined && !deletes.includes(path)) deletes.push(path);
        if (reason) warnings.push(leftAloneWarning(name, `is removed, but its file ${path} is left alone: ${reason}`));
      }
      changes.push({ action: 'remove', kind: 'image', name, id: null, before: locked, after: null, deletes });
    }
  }
  return { changes, errors, warnings, fingerprint };
}

/** Each path the lock records, with the bytes it records there: a file that still holds them is one the tool wrote. */
function writtenByTheTool(state: ImageState): Map<string, Set<string>> {
  const written = new Map<string, Set<string>>();
  for (const entry of Object.values(state.lock.images))
    for (const { path, sha256 } of entry.outputs) written.set(path, (written.get(path) ?? new Set()).add(sha256));
  return written;
}

/**
 * The files an image would write over that the tool did not write: a file at a path its lock entry does not record, which
 * no entry records with its bytes either (an entry lost in a merge, a file put there by hand). One of its own paths holds
 * the tool's file, though it was altered (the plan says so: `output-altered`); a file that another entry records as it is
 * was the tool's too (an image renamed that writes its old path).
 */
function inTheWay(
  image: DesiredImage,
  paths: string[],
  locked: LockedImage | undefined,
  state: ImageState,
  written: Map<string, Set<string>>,
): PlanProblem[] {
  return paths.flatMap((path) => {
    const file = own(state.files, path);
    if (file?.status !== 'present' || locked?.outputs.some((output) => output.path === path)) return [];
    if (written.get(path)?.has(file.sha256)) return [];
    return [
      {
        code: 'IMAGE_FILE_IN_THE_WAY',
        name: image.key,
        message: `image ${quoted(image.key)} would write over ${path}, a file the lock does not record as the tool's`,
        hint: `move ${path} away, or delete it to let the tool write it; if the lock lost the entry of image ${quoted(image.key)} in a merge, restore ${LOCK_FILE} from version control`,
      },
    ];
  });
}

function leftAloneWarning(name: string, what: string): PlanProblem {
  return {
    code: 'IMAGE_LEFT_ALONE',
    name,
    message: `image ${quoted(name)} ${what}`,
    hint: 'the tool deletes only the files it wrote; delete this one by hand if it should go',
  };
}

/**
 * The files a moved image no longer writes: those a removal would delete (see leftAloneReason),
 * and why each other one stays. One that is the very file a new path names (another spelling
 * of it on a disk that ignores case, or a hard link) stays too: deleting it would delete the
 * moved file.
 */
function oldFiles(
  image: DesiredImage,
  locked: LockedImage,
  state: ImageState,
  uses: Map<string, string>,
): { deletes: string[]; leftAlone: Array<{ path: string; reason: string }> } {
  const deletes: string[] = [];
  const leftAlone: Array<{ path: string; reason: string }> = [];
  const identities = new Map(
    image.outputs.flatMap((path) => identityOf(own(state.files, path)).map((identity) => [identity, path] as const)),
  );
  for (const { path, sha256 } of locked.outputs) {
    if (image.outputs.includes(path) || deletes.includes(path)) continue;
    const file = own(state.files, path);
    const same = identityOf(file).map((identity) => identities.get(identity))[0];
    const reason =
      same === undefined
        ? leftAloneReason(file, sha256, uses.get(path))
        : `it is the file ${same} names, by another name on this disk`;
    if (reason === undefined) deletes.push(path);
    else if (reason !== '') leftAlone.push({ path, reason });
  }
  return { deletes, leftAlone };
}

function identityOf(file: LocalFile | undefined): string[] {
  return file?.status === 'present' && file.identity !== undefined ? [file.identity] : [];
}

/**
 * Why a file of a removed image must stay; undefined when it is one the tool wrote and may
 * delete, and '' when it is gone already. Only a regular file in the project (no link, not
 * even to a file in it) whose bytes are the recorded ones, an image by its content, is the
 * tool's: a lock edited by hand may name any file, with any hash. A file a declared image
 * writes or reads stays too, whatever its bytes: it is in use.
 */
function leftAloneReason(file: LocalFile | undefined, recorded: string, use: string | undefined): string | undefined {
  if (file === undefined) return 'it was not read';
  if (file.status === 'absent') return '';
  if (file.status === 'refused') return file.reason;
  if (use !== undefined) return use;
  if (file.link) return 'it is a link, and the tool writes files, not links';
  if (file.sha256 !== recorded) return 'its bytes are not the ones the lock records for it';
  if (file.format === null || file.format === 'heic')
    return 'it is not an image (by its content), and the tool writes only images';
  return undefined;
}

/** Each file a declared image writes or reads, with what it is to that image. */
function declaredUses(desired: DesiredImage[]): Map<string, string> {
  const uses = new Map<string, string>();
  for (const image of desired) {
    for (const output of image.outputs) uses.set(output, `the declared image ${quoted(image.key)} writes it`);
    for (const input of Object.values(image.inputs))
      if ('file' in input && !uses.has(input.file))
        uses.set(input.file, `the declared image ${quoted(image.key)} reads it`);
  }
  return uses;
}

/**
 * What an image needs: to be generated (and why, with which seeds), moved (its request the
 * same, each file where the file now says, or copied there from where the lock records it,
 * whose bytes are still the locked ones), or nothing. A file that can be neither found nor
 * copied is generated again with the locked seeds, which bring it back identical.
 */
function decide(
  image: DesiredImage,
  request: ImageRequest,
  locked: LockedImage | undefined,
  state: ImageState,
):
  | { reason: ImageGenerateReason; seeds: number[] | null }
  | { copies: ImageMove['copies']; locked: LockedImage }
  | undefined {
  const pinned = image.params.seed ?? null;
  if (!locked) return { reason: 'new', seeds: pinned };
  if (Object.values(request.inputs).some((input) => input.sha256 === null))
    return { reason: 'input-regenerated', seeds: pinned };
  if (requestKey(request) !== requestKey(locked.request)) return { reason: 'request-changed', seeds: pinned };
  const copies: ImageMove['copies'] = [];
  let moved = false;
  for (const [index, path] of image.outputs.entries()) {
    const recorded = locked.outputs[index];
    const file = own(state.files, path);
    if (file?.status === 'refused') continue;
    if (recorded !== undefined && recorded.path !== path) moved = true;
    if (file?.status === 'present' && file.sha256 === recorded?.sha256) continue;
    const old = recorded === undefined || recorded.path === path ? undefined : own(state.files, recorded.path);
    if (old?.status === 'present' && old.sha256 === recorded?.sha256) {
      copies.push({ from: recorded.path, to: path });
      continue;
    }
    return { reason: !file || file.status === 'absent' ? 'output-missing' : 'output-altered', seeds: locked.seeds };
  }
  return moved ? { copies, locked } : undefined;
}

/**
 * Inputs as the request records them. Another image's output counts with the hash it will
 * have: the locked one, unless that image gets new content in this plan (null: known only
 * once it is generated).
 */
function recordInputs(
  image: DesiredImage,
  byName: Map<string, DesiredImage>,
  state: ImageState,
  regenerated: Map<string, ImageGenerateReason>,
): ImageRequest['inputs'] {
  const inputs: ImageRequest['inputs'] = {};
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = image.inputs[field];
    if (!input) continue;
    let recorded: RecordedInput;
    if ('from' in input) {
      const reason = regenerated.get(input.from);
      const sha256 =
        reason !== undefined && NEW_CONTENT.includes(reason)
          ? null
          : (own(state.lock.images, input.from)?.outputs[0]?.sha256 ?? null);
      recorded = { from: input.from, file: byName.get(input.from)?.outputs[0] ?? '', sha256 };
    } else {
      const file = own(state.files, input.file);
      recorded = { file: input.file, sha256: file?.status === 'present' ? file.sha256 : '' };
    }
    inputs[field] = recorded;
  }
  return inputs;
}

/** Output paths that lead out of the project, and local inputs that are missing or unfit. */
function fileProblems(image: DesiredImage, state: ImageState): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const problem = (code: PlanProblem['code'], message: string, hint: string): void =>
    void problems.push({ code, name: image.key, message: `image ${quoted(image.key)}: ${message}`, hint });
  for (const path of image.outputs) {
    const file = own(state.files, path);
    if (file?.status === 'refused')
      problem(
        'IMAGE_PATH',
        `cannot write ${path}: ${file.reason}`,
        'keep image files in the folder of the desired-state file or below it, not through links that lead elsewhere',
      );
  }
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = image.inputs[field];
    if (!input || 'from' in input) continue;
    const file = own(state.files, input.file);
    if (!file || file.status === 'absent') {
      problem(
        'IMAGE_INPUT',
        `${field} ${input.file} does not exist`,
        'check the path: it is relative to the desired-state file',
      );
      continue;
    }
    if (file.status === 'refused') {
      problem(
        'IMAGE_PATH',
        `cannot read ${field} ${input.file}: ${file.reason}`,
        'keep input images in the folder of the desired-state file or below it',
      );
      continue;
    }
    const accepted = INPUT_FORMATS[image.operation];
    if (file.format === null || !accepted.includes(file.format)) {
      problem(
        'IMAGE_INPUT',
        `${field} ${input.file} is ${file.format === null ? 'not an image the service reads' : `a ${file.format} file`} (by its content)`,
        `${image.operation} takes ${accepted.join(', ')} files: convert it`,
      );
      continue;
    }
    if (
      image.operation === 'inpainting' &&
      field !== 'mask' &&
      file.width !== null &&
      file.height !== null &&
      Math.max(file.width, file.height) > INPAINTING_MAX_SIDE
    ) {
      problem(
        'IMAGE_INPUT',
        `${field} ${input.file} is ${file.width}×${file.height} pixels; inpainting takes at most ${INPAINTING_MAX_SIDE} a side`,
        `scale it down to fit ${INPAINTING_MAX_SIDE}×${INPAINTING_MAX_SIDE}`,
      );
    }
  }
  return problems;
}

/** The parameters and inputs whose values differ, in the spec's order. */
function requestFields(before: ImageRequest, after: ImageRequest): FieldChange[] {
  const fields: FieldChange[] = [];
  const push = (field: string, a: JsonValue | undefined, b: JsonValue | undefined): void => {
    if (JSON.stringify(a ?? null) !== JSON.stringify(b ?? null))
      fields.push({ field, before: a ?? null, after: b ?? null });
  };
  push('operation', before.operation, after.operation);
  const paramsBefore = before.params as unknown as Record<string, JsonValue>;
  const paramsAfter = after.params as unknown as Record<string, JsonValue>;
  for (const field of IMAGE_PARAM_FIELDS) push(field, paramsBefore[field], paramsAfter[field]);
  for (const field of IMAGE_INPUT_FIELDS) {
    const a = before.inputs[field];
    const b = after.inputs[field];
    if ((a?.sha256 ?? null) !== (b?.sha256 ?? null)) push(field, a ?? null, b ?? null);
  }
  return fields;
}

/** Sources before the images made from them; otherwise the file's order. */
function dependencyOrder(images: DesiredImage[]): DesiredImage[] {
  const byName = new Map(images.map((image) => [image.key, image]));
  const ordered: DesiredImage[] = [];
  const placed = new Set<string>();
  const place = (image: DesiredImage, trail: Set<string>): void => {
    if (placed.has(image.key) || trail.has(image.key)) return;
    trail.add(image.key);
    for (const input of Object.values(image.inputs)) {
      const source = 'from' in input ? byName.get(input.from) : undefined;
      if (source) place(source, trail);
    }
    placed.add(image.key);
    ordered.push(image);
  };
  for (const image of images) place(image, new Set());
  return ordered;
}
