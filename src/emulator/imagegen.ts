/**
 * The image-generation service of the emulator (spec: imagegen-api.md; behaviour: SPEC-imagegen.md).
 * The HTTP server checks the AppKey and parses JSON, then hands the body here. Images are real files of the
 * requested size and format whose pixels are a pure function of (operation, content parameters, input image
 * bytes, seed), so a seed sent back reproduces the image byte for byte.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { DETAIL, MAX_SEED, parseImagegenRequest } from './imagegen-rules.js';
import type { ImagegenRequest, Operation } from './imagegen-rules.js';
import { decodeBase64, encodeImage, inspectImage, isImageProblem, renderPattern } from './image-bytes.js';
import type { InputFormat, InspectedImage } from './image-bytes.js';
import { invalid } from './http-error.js';

export interface ImagegenResult {
  status: number;
  body: unknown;
}

export interface Imagegen {
  /** Throws EmulatorError (400) on a request the service would refuse. */
  handle(operation: Operation, body: unknown): Promise<ImagegenResult>;
  /** The file behind a returned URL (`/images/<name>`); undefined when unknown or expired. */
  file(name: string): { contentType: string; bytes: Buffer } | undefined;
}

export const URL_LIFETIME_MS = 10 * 60 * 1000;
export const MAX_ENLARGED_SIDE = 2048;
export const MAX_INPAINTING_SIDE = 1024;
/** Served files are kept at most this many bytes in total; beyond it the oldest go first, even if still valid. */
export const MAX_STORED_BYTES = 256 * 1024 * 1024;
/** The documented trigger of the unsafe-content check (a whole word of the prompt, any case). */
export const NSFW_TRIGGER = /\bunsafe\b/i;

export function createImagegen(options: { baseUrl: () => string; now: () => number }): Imagegen {
  const store = createFileStore(options.now);
  return {
    async handle(operation, body) {
      const request = parseImagegenRequest(operation, body);
      const inputs = await readInputs(request);
      const size =
        inputs.image && request.operation === 'inpainting'
          ? { width: inputs.image.image.width, height: inputs.image.image.height }
          : { width: request.width ?? 0, height: request.height ?? 0 };
      const target = request.upscale ? enlargedSize(size, request.scale) : size;
      const seeds = request.seed ?? Array.from({ length: request.samples }, () => randomInt(0, MAX_SEED + 1));
      const content = contentKey(request, inputs);
      const outputs = [];
      for (const seed of seeds) {
        const key = createHash('sha256').update(`${content}\n${seed}`).digest();
        const pixels = draw(key, size, inputs);
        const bytes = await encodeImage(pixels, size, target, request.image_format, request.image_quality);
        outputs.push({ id: randomUUID(), seed, key, bytes });
      }
      // The URL lifetime counts from the response, which is now that every image is ready.
      const respondedAt = options.now();
      const images = outputs.map(({ id, seed, key, bytes }) => {
        let image: string;
        if (request.return_type === 'url') {
          const name = `${id}.${request.image_format}`;
          store.put(name, { contentType: `image/${request.image_format}`, bytes }, respondedAt + URL_LIFETIME_MS);
          image = `${options.baseUrl()}/images/${name}`;
        } else {
          image = bytes.toString('base64');
        }
        return { id, seed, image, ...nsfw(request, key) };
      });
      return { status: 200, body: { id: randomUUID(), model_version: request.version, images } };
    },
    file: (name) => store.get(name),
  };
}

/** Enlarges by `scale`, keeping the aspect ratio, with the longer side capped at 2048. */
export function enlargedSize(
  size: { width: number; height: number },
  scale: number,
): { width: number; height: number } {
  const factor = Math.min(scale, MAX_ENLARGED_SIDE / Math.max(size.width, size.height));
  return {
    width: Math.max(1, Math.round(size.width * factor)),
    height: Math.max(1, Math.round(size.height * factor)),
  };
}

interface Input {
  image: InspectedImage;
  sha256: string;
}

interface Inputs {
  image?: Input;
  mask?: Input;
  reference_image?: Input;
}

const RECOMMENDED: readonly InputFormat[] = ['jpeg', 'png', 'webp'];
const INPAINTING_FORMATS: readonly InputFormat[] = ['webp', 'png', 'jpeg', 'heic'];

async function readInputs(request: ImagegenRequest): Promise<Inputs> {
  const inputs: Inputs = {};
  if (request.operation === 'variations' && request.image !== null) {
    inputs.image = await readInput('image', request.image, RECOMMENDED, undefined);
  }
  if (request.operation === 'inpainting') {
    if (request.image !== null)
      inputs.image = await readInput('image', request.image, INPAINTING_FORMATS, MAX_INPAINTING_SIDE);
    if (request.mask !== null) inputs.mask = await readInput('mask', request.mask, INPAINTING_FORMATS, undefined);
    if (request.reference_image !== null) {
      inputs.reference_image = await readInput(
        'reference_image',
        request.reference_image,
        INPAINTING_FORMATS,
        MAX_INPAINTING_SIDE,
      );
    }
    const { image, mask } = inputs;
    if (image && mask && (image.image.width !== mask.image.width || image.image.height !== mask.image.height)) {
      throw invalid(
        DETAIL.MASK_SIZE_MISMATCH,
        `mask is ${mask.image.width}x${mask.image.height} but image is ${image.image.width}x${image.image.height}: they must be the same size`,
      );
    }
  }
  return inputs;
}

async function readInput(
  name: string,
  base64: string,
  formats: readonly InputFormat[],
  maxSide: number | undefined,
): Promise<Input> {
  const bytes = decodeBase64(base64);
  if (!Buffer.isBuffer(bytes)) throw invalid(DETAIL.IMAGE_BASE64, `${name} ${bytes.message}`);
  const image = await inspectImage(bytes);
  if (isImageProblem(image)) {
    if (image.kind === 'format') throw unsupported(name, image.format, formats);
    throw invalid(DETAIL.IMAGE_UNDECODABLE, `${name} ${image.message}`);
  }
  if (!formats.includes(image.format)) throw unsupported(name, image.format, formats);
  if (maxSide !== undefined && (image.width > maxSide || image.height > maxSide)) {
    throw invalid(
      DETAIL.IMAGE_TOO_LARGE,
      `${name} is ${image.width}x${image.height}; at most ${maxSide} pixels per side are allowed`,
    );
  }
  return { image, sha256: createHash('sha256').update(bytes).digest('hex') };
}

function unsupported(name: string, format: string, formats: readonly InputFormat[]): Error {
  return invalid(DETAIL.IMAGE_FORMAT_UNSUPPORTED, `${name} is ${format}; accepted formats are ${formats.join(', ')}`);
}

/**
 * Everything that shapes the picture, defaults applied. Seed, samples, return_type, output encoding, upscaling and
 * nsfw_checker are left out: they do not change what is drawn, so one seed of a batch regenerates alone.
 */
function contentKey(request: ImagegenRequest, inputs: Inputs): string {
  return JSON.stringify([
    request.operation,
    request.version,
    request.prompt,
    request.negative_prompt,
    request.width,
    request.height,
    request.prior_num_inference_steps,
    request.prior_guidance_scale,
    request.num_inference_steps,
    request.guidance_scale,
    request.scheduler,
    request.face_refiner,
    inputs.image?.sha256 ?? null,
    inputs.mask?.sha256 ?? null,
    inputs.reference_image?.sha256 ?? null,
  ]);
}

/**
 * Inpainting keeps the source pixels outside the black mask region; HEIC inputs (not decodable here) are redrawn whole.
 */
function draw(key: Buffer, size: { width: number; height: number }, inputs: Inputs): Buffer {
  const pixels = renderPattern(key, size.width, size.height);
  const source = inputs.image?.image.rgb;
  const mask = inputs.mask?.image.rgb;
  if (!source || !mask) return pixels;
  for (let at = 0; at < pixels.length; at += 3) {
    const black = mask[at] === 0 && mask[at + 1] === 0 && mask[at + 2] === 0;
    if (!black) source.copy(pixels, at, at, at + 3);
  }
  return pixels;
}

function nsfw(
  request: ImagegenRequest,
  key: Buffer,
): { nsfw_content_detected: boolean | null; nsfw_score: number | null } {
  if (!request.nsfw_checker) return { nsfw_content_detected: null, nsfw_score: null };
  const unit = key.readUInt16BE(30) / 65536;
  const flagged = request.prompt !== null && NSFW_TRIGGER.test(request.prompt);
  // Flagged scores lie in [0.9, 1), the others in [0, 0.2): a client can threshold at 0.5.
  const score = flagged ? 0.9 + unit * 0.1 : unit * 0.2;
  return { nsfw_content_detected: flagged, nsfw_score: Math.floor(score * 10_000) / 10_000 };
}

interface StoredFile extends ServedFile {
  expiresAt: number;
}

export interface FileStore {
  put(name: string, file: ServedFile, expiresAt: number): void;
  get(name: string): ServedFile | undefined;
  /** Bytes currently held. */
  size(): number;
}

export interface ServedFile {
  contentType: string;
  bytes: Buffer;
}

/** Files behind returned URLs: dropped once expired, and the oldest first when over `maxBytes`. */
export function createFileStore(now: () => number, maxBytes = MAX_STORED_BYTES): FileStore {
  // Insertion order is response order, which is expiry order while the clock moves forward.
  const files = new Map<string, StoredFile>();
  let total = 0;
  const drop = (name: string, file: StoredFile): void => {
    files.delete(name);
    total -= file.bytes.length;
  };
  const sweep = (): void => {
    const at = now();
    for (const [name, file] of files) if (file.expiresAt <= at) drop(name, file);
  };
  return {
    put(name, file, expiresAt) {
      sweep();
      files.set(name, { ...file, expiresAt });
      total += file.bytes.length;
      for (const [oldest, stored] of files) {
        if (total <= maxBytes) break;
        drop(oldest, stored);
      }
    },
    get(name) {
      sweep();
      const file = files.get(name);
      return file && { contentType: file.contentType, bytes: file.bytes };
    },
    size: () => total,
  };
}
