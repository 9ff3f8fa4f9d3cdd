import { createHash } from 'node:crypto';
import type { InpaintingRequest, TextToImageRequest, VariationsRequest } from '../../api/generated/wire.js';
import type { ImageClient } from '../../api/imagegen.js';
import { causeOf, identify, NOT_STARTED, unmade } from '../results.js';
import {
  IMAGE_INPUT_FIELDS,
  requestKey,
  type ImageGeneration,
  type ImageRequest,
  type LockedOutput,
} from '../../model/index.js';
import type { Change, ChangeResult, ImageGenerate, ImageMove, ImageRemove } from '../../plan/index.js';
import type { ApplyKind, ApplyProgress } from '../kind.js';
import type { ImageStore } from './image-store.js';

export type { ImageStore } from './image-store.js';

const NO_IMAGE_SERVICE = 'image generation is not available here';

/** Image changes only: their `kind` is 'image'. */
function isImageChange(change: Change): change is ImageGenerate | ImageMove | ImageRemove {
  return change.kind === 'image';
}

/**
 * Images: generated after the audiences (the two never depend on each other), sources
 * before the images made from them. Where no image service is given (a caller that applies
 * only audiences), each image change is reported as not done. The files are checked when
 * they are written, so there is nothing to verify afterwards.
 */
export const imageKind: ApplyKind<'image'> = {
  kind: 'image',
  apply: async (changes, { images, started, finished, signal }) => {
    const imageChanges = changes.filter(isImageChange);
    const results = images
      ? await applyImages(
          imageChanges,
          images.client,
          images.store,
          { concurrency: images.concurrency, signal },
          { started, finished },
        )
      : imageChanges.map((change) => {
          const result: ChangeResult = { ...identify(change), status: 'skipped', cause: NO_IMAGE_SERVICE };
          finished(change, result);
          return result;
        });
    return new Map(imageChanges.map((change, index) => [change, results[index] as ChangeResult]));
  },
  verify: async () => [],
};

/**
 * Moves, generates and removes images: moves first (an image made from a moved one reads it
 * at its new path), then each generation waits for the images it is made from, at most
 * `concurrency` run at once, and each success is written and locked before the next is
 * reported. An image whose source failed is skipped; one flagged unsafe is not written. A
 * move or a removal whose files changed since the plan is skipped, its lock entry kept. Every
 * change ends as a result; nothing throws halfway.
 */
export async function applyImages(
  changes: Array<ImageGenerate | ImageMove | ImageRemove>,
  /** Absent when the changes only remove images. */
  client: ImageClient | undefined,
  store: ImageStore,
  /** `signal`: once aborted, no generation or removal starts (they end as not started). */
  options: { concurrency: number; signal?: AbortSignal },
  progress: Partial<ApplyProgress> = {},
): Promise<ChangeResult[]> {
  const slots = limiter(Math.max(1, options.concurrency));
  const generated = new Map<string, Promise<Uint8Array | undefined>>();
  const results = new Map<ImageGenerate | ImageMove | ImageRemove, ChangeResult>();
  const finish = (
    change: ImageGenerate | ImageMove | ImageRemove,
    status: ChangeResult['status'],
    cause?: string,
    written?: ChangeResult['written'],
  ): void => {
    const result: ChangeResult = {
      action: change.action,
      name: change.name,
      id: null,
      status,
      ...(cause === undefined ? {} : { cause }),
      ...(written === undefined ? {} : { written }),
    };
    results.set(change, result);
    progress.finished?.(change, result);
  };

  await applyMoves(
    changes.filter((change): change is ImageMove => change.action === 'move'),
    store,
    options.signal,
    progress,
    finish,
  );

  const generates = changes.filter((change): change is ImageGenerate => change.action === 'generate');
  // Register every generation before any starts, so a dependant finds its source's promise.
  const settle = new Map<string, (bytes: Uint8Array | undefined) => void>();
  for (const change of generates)
    generated.set(change.name, new Promise((resolve) => settle.set(change.name, resolve)));

  await Promise.all(
    generates.map(async (change) => {
      let first: Uint8Array | undefined;
      try {
        const inputs = await resolveInputs(change, generated, store);
        if (typeof inputs === 'string') {
          finish(change, 'skipped', inputs);
          return;
        }
        const outcome = await slots(async () => {
          if (options.signal?.aborted) return null;
          progress.started?.(change);
          return generate(change, inputs, client, store);
        });
        if (outcome === null) finish(change, 'skipped', NOT_STARTED);
        else if (typeof outcome === 'string') finish(change, 'failed', outcome);
        else {
          first = outcome.files[0]?.bytes ?? new Uint8Array();
          finish(
            change,
            'ok',
            notReproduced(change, outcome.written),
            outcome.files.map((file, index) => ({ path: file.path, seed: outcome.seeds[index] as number })),
          );
        }
      } catch (error) {
        const result = unmade(change, error);
        finish(change, result.status, result.cause);
      } finally {
        settle.get(change.name)?.(first);
      }
    }),
  );

  for (const change of changes.filter((candidate): candidate is ImageRemove => candidate.action === 'remove')) {
    if (options.signal?.aborted) {
      finish(change, 'skipped', NOT_STARTED);
      continue;
    }
    progress.started?.(change);
    try {
      // Only the files the plan said it deletes, as the lock recorded them: the others are left alone.
      const refused = await store.remove(
        change.before.outputs.filter((output) => change.deletes.includes(output.path)),
      );
      if (refused !== undefined) {
        finish(change, 'skipped', `${refused}; nothing was removed`);
        continue;
      }
      await store.record(change.name, null);
      finish(change, 'ok');
    } catch (error) {
      finish(change, 'failed', causeOf(error));
    }
  }
  return changes.map((change) => results.get(change) as ChangeResult);
}

/**
 * Moves, each from its files as the lock recorded them: every file copied is read and checked
 * first (the locked bytes, as planned), all of them before any is written, so that two images
 * trading paths each copy the other's old file; then each move writes its new files and its
 * lock entry, and last deletes its old files, checked again (see ImageStore.remove). Its files
 * and lock written, a move is done even when an old file cannot go: the line says it stays.
 */
async function applyMoves(
  moves: ImageMove[],
  store: ImageStore,
  signal: AbortSignal | undefined,
  progress: Partial<ApplyProgress>,
  finish: (change: ImageMove, status: ChangeResult['status'], cause?: string) => void,
): Promise<void> {
  const copies = new Map<ImageMove, Array<{ path: string; bytes: Uint8Array }>>();
  for (const move of moves) {
    if (signal?.aborted) {
      finish(move, 'skipped', NOT_STARTED);
      continue;
    }
    progress.started?.(move);
    try {
      const files = await Promise.all(
        move.copies.map(async ({ from, to }) => ({ from, path: to, bytes: await store.read(from) })),
      );
      const changed = files.find(
        ({ from, bytes }) => sha256(bytes) !== move.before.outputs.find((output) => output.path === from)?.sha256,
      );
      if (changed) finish(move, 'skipped', `${changed.from} changed since the plan was made; nothing was moved`);
      else copies.set(move, files);
    } catch (error) {
      finish(move, 'failed', causeOf(error));
    }
  }
  const written: ImageMove[] = [];
  for (const [move, files] of copies) {
    try {
      await store.write(files);
      await store.record(move.name, {
        ...move.before,
        outputs: move.before.outputs.map((output, index) => ({
          path: move.after.outputs[index] ?? output.path,
          sha256: output.sha256,
        })),
      });
      written.push(move);
    } catch (error) {
      finish(move, 'failed', causeOf(error));
    }
  }
  for (const move of written) {
    try {
      const refused = await store.remove(move.before.outputs.filter((output) => move.deletes.includes(output.path)));
      finish(move, 'ok', refused === undefined ? undefined : `the old file stays: ${refused}`);
    } catch (error) {
      finish(move, 'ok', `the old file stays: ${causeOf(error)}`);
    }
  }
}

type InputBytes = Partial<Record<(typeof IMAGE_INPUT_FIELDS)[number], Uint8Array>>;

/**
 * The bytes of each input: a file as planned (its hash must not have changed), or a source's output. A string says why
 * not.
 */
async function resolveInputs(
  change: ImageGenerate,
  generated: Map<string, Promise<Uint8Array | undefined>>,
  store: ImageStore,
): Promise<InputBytes | string> {
  const bytes: InputBytes = {};
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = change.after.request.inputs[field];
    if (!input) continue;
    const pending = 'from' in input ? generated.get(input.from) : undefined;
    if (pending) {
      const made = await pending;
      if (!made) return `its ${field} comes from image "${'from' in input ? input.from : ''}", which was not generated`;
      bytes[field] = made;
      continue;
    }
    const read = await store.read(input.file);
    if (sha256(read) !== input.sha256) return `${field} ${input.file} changed since the plan was made`;
    bytes[field] = read;
  }
  return bytes;
}

/**
 * One generation: the request, the checks of its answer, the files, then the lock. Returns the first file, or why it
 * failed.
 */
async function generate(
  change: ImageGenerate,
  inputs: InputBytes,
  client: ImageClient | undefined,
  store: ImageStore,
): Promise<{ files: Array<{ path: string; bytes: Uint8Array }>; written: LockedOutput[]; seeds: number[] } | string> {
  if (!client) return NO_IMAGE_SERVICE;
  const { request, seeds, outputs } = change.after;
  // The plan decided the seeds: pinned, locked (to reproduce the files) or none (the service chooses).
  const body: Record<string, unknown> = { ...request.params };
  delete body['seed'];
  if (seeds !== null) body['seed'] = seeds;
  for (const [field, bytes] of Object.entries(inputs)) body[field] = Buffer.from(bytes).toString('base64');

  const answer: ImageGeneration =
    request.operation === 't2i'
      ? await client.textToImage(body as unknown as TextToImageRequest)
      : request.operation === 'variations'
        ? await client.variations(body as unknown as VariationsRequest)
        : await client.inpainting(body as unknown as InpaintingRequest);

  if (answer.images.length !== outputs.length)
    return `the service returned ${answer.images.length} images for ${outputs.length} samples`;
  const flagged = answer.images.flatMap((image, index) => (image.nsfwContentDetected === true ? [outputs[index]] : []));
  if (flagged.length > 0)
    return `the service flagged ${flagged.join(', ')} as unsafe content (nsfw_checker); nothing was written`;
  const wrong = answer.images.find((image) => image.format !== request.params.image_format);
  if (wrong)
    return `the service returned a ${wrong.format} file where ${request.params.image_format} was asked for; nothing was written`;

  const files = answer.images.map((image, index) => ({ path: outputs[index] as string, bytes: image.bytes }));
  await store.write(files);
  const recorded = actualRequest(request, inputs);
  const usedSeeds = answer.images.map((image) => image.seed);
  const written = files.map((file) => ({ path: file.path, sha256: sha256(file.bytes) }));
  await store.record(change.name, {
    request: recorded,
    requestHash: sha256(new TextEncoder().encode(requestKey(recorded))),
    seeds: usedSeeds,
    modelVersion: answer.modelVersion,
    outputs: written,
  });
  return { files, written, seeds: usedSeeds };
}

/**
 * The plan promised a lost or altered file back identical with the locked seeds; when the bytes written are not the ones
 * the lock recorded (its seeds were edited by hand, or the service's model changed), the apply says so rather than
 * recording the new file in silence.
 */
function notReproduced(change: ImageGenerate, written: LockedOutput[]): string | undefined {
  if (change.display.reason !== 'output-missing' && change.display.reason !== 'output-altered') return undefined;
  const recorded = change.before?.outputs ?? [];
  const differ = written.filter((file, index) => file.sha256 !== recorded[index]?.sha256).map((file) => file.path);
  if (differ.length === 0) return undefined;
  return `the locked seeds did not bring back the bytes the lock recorded for ${differ.join(', ')} (the lock's seeds were edited, or the service's model changed): the lock now records the new ${differ.length === 1 ? 'file' : 'files'}`;
}

/** The request as it was sent: every input's hash known (a source generated in this run has its new hash). */
function actualRequest(request: ImageRequest, inputs: InputBytes): ImageRequest {
  const recorded: ImageRequest['inputs'] = {};
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = request.inputs[field];
    const bytes = inputs[field];
    if (input && bytes) recorded[field] = { ...input, sha256: sha256(bytes) };
  }
  return { ...request, inputs: recorded };
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** At most `size` tasks at once; the rest wait in order. */
function limiter(size: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    // A finishing task hands its slot straight to the next waiter, so none is taken twice.
    if (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
