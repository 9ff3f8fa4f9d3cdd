import type { ImageFormat } from './image.js';
import { stableStringify, type JsonValue } from './json.js';

/**
 * Generated images declared in the desired-state file, and the lock file that makes them
 * reproducible. The names are the image-generation API's own (`prompt`, `seed`, …).
 */
export type ImageOperation = 't2i' | 'variations' | 'inpainting';
export const IMAGE_OPERATIONS: readonly ImageOperation[] = ['t2i', 'variations', 'inpainting'];

export const IMAGE_INPUT_FIELDS = ['image', 'mask', 'reference_image'] as const;
export type ImageInputField = (typeof IMAGE_INPUT_FIELDS)[number];

/** An input image: a local file (relative to the desired-state file) or the output of another declared image. */
export type ImageInput = { file: string } | { from: string };

export interface FaceRefinerParams {
  bbox_size_threshold?: number;
  bbox_filter_threshold?: number;
  restoration_repeats?: number;
  weight_sft?: number;
}

/** The request parameters of one image set, as declared (shorthands expanded), without the input images. */
export interface ImageParams {
  version?: 'v2.1' | 'v2.0';
  prompt?: string;
  negative_prompt?: string;
  width?: number;
  height?: number;
  upscale?: boolean;
  scale?: 2 | 4;
  image_format: ImageFormat;
  image_quality?: number;
  samples: number;
  return_type?: 'base64_string' | 'url';
  prior_num_inference_steps?: number;
  prior_guidance_scale?: number;
  num_inference_steps?: number;
  guidance_scale?: number;
  scheduler?: string;
  /** Present only when the file pins the seeds. */
  seed?: number[];
  nsfw_checker?: boolean;
  face_refiner?: FaceRefinerParams;
}

/** The parameter names of the spec's table, in its order (the request a generation sends, inputs aside). */
export const IMAGE_PARAM_FIELDS = [
  'version',
  'prompt',
  'negative_prompt',
  'width',
  'height',
  'upscale',
  'scale',
  'image_format',
  'image_quality',
  'samples',
  'return_type',
  'prior_num_inference_steps',
  'prior_guidance_scale',
  'num_inference_steps',
  'guidance_scale',
  'scheduler',
  'seed',
  'nsfw_checker',
  'face_refiner',
] as const;

export interface DesiredImage {
  /** The image set's name: unique in the file. */
  key: string;
  operation: ImageOperation;
  params: ImageParams;
  inputs: Partial<Record<ImageInputField, ImageInput>>;
  /** The files written, relative to the desired-state file: `output` itself, or numbered for several samples. */
  outputs: string[];
}

/**
 * An input as a request records it: where it came from and the hash of its bytes. Another
 * image's output names the image and its file; its hash is null while that image is still
 * to be generated.
 */
export type RecordedInput = { file: string; sha256: string } | { from: string; file: string; sha256: string | null };

/** What one generation asks for, without bytes: what the lock records and a plan compares. */
export interface ImageRequest {
  operation: ImageOperation;
  params: ImageParams;
  inputs: Partial<Record<ImageInputField, RecordedInput>>;
}

/**
 * The identity of a request: the operation, the parameters and the inputs' content. Where an
 * input came from does not matter, only its bytes: a moved file regenerates nothing.
 */
export function requestKey(request: ImageRequest): string {
  const inputs: Record<string, JsonValue> = {};
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = request.inputs[field];
    if (input) inputs[field] = input.sha256;
  }
  return stableStringify({ operation: request.operation, params: request.params as unknown as JsonValue, inputs });
}

export interface LockedOutput {
  path: string;
  sha256: string;
}

/** What the lock file records of one generated image set. */
export interface LockedImage {
  request: ImageRequest;
  /** SHA-256 of `requestKey(request)`. */
  requestHash: string;
  /** The seeds the service used, one per file: sending them again reproduces the files. */
  seeds: number[];
  modelVersion: string;
  outputs: LockedOutput[];
}

export const LOCK_FILE = 'images.lock.json';

/** What to do about a lock that cannot be used. */
export const IMAGE_LOCK_HINT = `restore ${LOCK_FILE} from version control (a file in the project, not a link out of it), or delete it to generate every image anew`;

/** images.lock.json, beside the desired-state file. */
export interface ImageLock {
  lockVersion: 1;
  images: Record<string, LockedImage>;
}

/**
 * A local file as the plan sees it: absent, present (with what its bytes are, `link` when the
 * path itself is a link to a file in the project, and `identity`, the file on disk, which two
 * paths share on a case-insensitive disk or as hard links), or refused with the reason.
 */
export type LocalFile =
  | { status: 'absent' }
  | {
      status: 'present';
      sha256: string;
      format: ImageFormat | 'heic' | null;
      width: number | null;
      height: number | null;
      link?: true;
      identity?: string;
    }
  | { status: 'refused'; reason: string };

/**
 * The local side of images, read before planning: the lock and every file the plan needs
 * (declared outputs, local inputs, and with pruneImages the files of locked images no longer
 * declared), by path as written in the file or the lock.
 */
export interface ImageState {
  /** The folder of the desired-state file, relative to the working directory ('.' for itself). */
  dir: string;
  /** The desired-state file's name in `dir`: a saved plan finds the folder again by it. */
  file?: string;
  lock: ImageLock;
  /** SHA-256 of the lock file's bytes; null when there is none. */
  lockHash: string | null;
  /**
   * Why the lock cannot be used, when it exists but is not a lock file, or is refused unread (a link out of the
   * project).
   */
  lockProblem?: string;
  /** What to do about lockProblem, when it is not what IMAGE_LOCK_HINT says. */
  lockHint?: string;
  files: Record<string, LocalFile>;
}

const EXTENSION_FORMATS: Readonly<Record<string, ImageFormat>> = {
  webp: 'webp',
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
};

/** The format an output file's extension names, if any. */
export function formatOfPath(path: string): ImageFormat | undefined {
  const match = /\.([A-Za-z0-9]+)$/.exec(path);
  return match ? EXTENSION_FORMATS[(match[1] ?? '').toLowerCase()] : undefined;
}

/**
 * A path of the project in one spelling: `./x.png`, `a//x.png` and `a/../x.png` name the files
 * `x.png`, `a/x.png` and `x.png`. Two spellings of one file must not count as two files: two
 * images would write it in turn, and a move from one spelling to the other would delete it.
 * A `..` that would leave the folder, and an absolute start, are kept (such a path is refused on its own).
 */
export function projectPath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts.at(-1) !== '..') parts.pop();
    else parts.push(part);
  }
  const joined = parts.join('/');
  return path.startsWith('/') ? `/${joined}` : joined || '.';
}

/** `banner.webp` for one sample; `banner-1.webp`, `banner-2.webp`, … for several. */
export function numberedOutputs(output: string, samples: number): string[] {
  if (samples <= 1) return [output];
  const match = /^(.*?)(\.[A-Za-z0-9]+)?$/.exec(output);
  const stem = match?.[1] ?? output;
  const extension = match?.[2] ?? '';
  return Array.from({ length: samples }, (_, index) => `${stem}-${index + 1}${extension}`);
}

/** Per operation, whether each parameter is required (R), optional (O) or not accepted (-): the spec's table. */
export const IMAGE_PARAM_TABLE: Readonly<
  Record<(typeof IMAGE_PARAM_FIELDS)[number] | ImageInputField, Readonly<Record<ImageOperation, 'R' | 'O' | '-'>>>
> = {
  version: { t2i: 'R', variations: 'R', inpainting: 'O' },
  prompt: { t2i: 'R', variations: '-', inpainting: 'R' },
  negative_prompt: { t2i: 'O', variations: '-', inpainting: 'O' },
  image: { t2i: '-', variations: 'R', inpainting: 'R' },
  mask: { t2i: '-', variations: '-', inpainting: 'R' },
  reference_image: { t2i: '-', variations: '-', inpainting: 'O' },
  width: { t2i: 'R', variations: 'R', inpainting: '-' },
  height: { t2i: 'R', variations: 'R', inpainting: '-' },
  upscale: { t2i: 'O', variations: 'O', inpainting: 'O' },
  scale: { t2i: 'O', variations: 'O', inpainting: 'O' },
  image_format: { t2i: 'O', variations: 'O', inpainting: 'O' },
  image_quality: { t2i: 'O', variations: 'O', inpainting: 'O' },
  samples: { t2i: 'O', variations: 'O', inpainting: 'O' },
  return_type: { t2i: 'O', variations: 'O', inpainting: 'O' },
  prior_num_inference_steps: { t2i: 'O', variations: '-', inpainting: 'O' },
  prior_guidance_scale: { t2i: 'O', variations: '-', inpainting: 'O' },
  num_inference_steps: { t2i: 'O', variations: 'O', inpainting: 'O' },
  guidance_scale: { t2i: 'O', variations: 'O', inpainting: 'O' },
  scheduler: { t2i: 'O', variations: 'O', inpainting: '-' },
  seed: { t2i: 'O', variations: 'O', inpainting: 'O' },
  nsfw_checker: { t2i: 'O', variations: 'O', inpainting: 'O' },
  face_refiner: { t2i: 'O', variations: 'O', inpainting: 'O' },
};

/** Size bounds of width and height per model version (multiples of 8). */
export const SIZE_BOUNDS: Readonly<Record<'v2.1' | 'v2.0', { min: number; max: number }>> = {
  'v2.1': { min: 768, max: 1280 },
  'v2.0': { min: 384, max: 640 },
};

export const SCHEDULERS: Readonly<Record<'v2.1' | 'v2.0', readonly string[]>> = {
  'v2.1': ['decoder_ddpm_v_prediction'],
  'v2.0': ['decoder_ddim_v_prediction', 'decoder_ddpm_v_prediction'],
};

/** Inpainting's `image` and `reference_image`: at most this many pixels per side. */
export const INPAINTING_MAX_SIDE = 1024;

/** The input formats each operation accepts: the recommended three, and HEIC for inpainting. */
export const INPUT_FORMATS: Readonly<Record<ImageOperation, ReadonlyArray<ImageFormat | 'heic'>>> = {
  t2i: [],
  variations: ['jpeg', 'png', 'webp'],
  inpainting: ['webp', 'png', 'jpeg', 'heic'],
};

/**
 * The operation a declared image performs: as written, or from its inputs (a mask means inpainting, an image
 * variations).
 */
export function inferOperation(declared: { operation?: unknown; image?: unknown; mask?: unknown }): ImageOperation {
  if (typeof declared.operation === 'string' && (IMAGE_OPERATIONS as readonly string[]).includes(declared.operation))
    return declared.operation as ImageOperation;
  if (declared.mask !== undefined) return 'inpainting';
  if (declared.image !== undefined) return 'variations';
  return 't2i';
}

/**
 * True when a prompt has a letter of a script other than Latin (Hangul, CJK, Cyrillic, …): the service takes English
 * only.
 */
export function hasNonLatinLetters(text: string): boolean {
  return /(?!\p{Script=Latin})\p{Letter}/u.test(text);
}
