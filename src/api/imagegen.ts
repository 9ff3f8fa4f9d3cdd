import { detectImageFormat, type GeneratedImage, type ImageGeneration } from '../model/index.js';
import { ApiError } from './api-error.js';
import type {
  GeneratedImage as GeneratedImageWire,
  ImageGenerationResponse,
  InpaintingRequest,
  TextToImageRequest,
  VariationsRequest,
} from './generated/wire.js';
import type { HttpClient } from './http.js';
import { PATH_SETTINGS } from './path-settings.js';

/**
 * The three image-generation operations. Each answers with the files themselves: a URL
 * result is downloaded at once (it expires after 10 minutes) and a Base64 one decoded, so
 * callers never see the wire's two ways of returning an image.
 */
export interface ImageClient {
  textToImage(request: TextToImageRequest): Promise<ImageGeneration>;
  variations(request: VariationsRequest): Promise<ImageGeneration>;
  inpainting(request: InpaintingRequest): Promise<ImageGeneration>;
}

type Operation = 't2i' | 'variations' | 'inpainting';

/** An absolute URL (the service's `url` return type); Base64 text never contains a colon. */
const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i;
/** Standard or URL-safe alphabet, padding optional: read tolerantly, the bytes are checked after. */
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** `modelFamily` is the path segment the spec writes as `imagegen` (IMAGEGEN_MODEL_FAMILY; the spec's by default). */
export function createImageClient(
  http: HttpClient,
  modelFamily: string = PATH_SETTINGS.IMAGEGEN_MODEL_FAMILY,
): ImageClient {
  const base = `/v2/inference/${modelFamily}`;
  const unusable = (method: 'GET' | 'POST', path: string, reason: string) =>
    new ApiError({
      service: 'imagegen',
      method,
      path,
      kind: 'invalid-response',
      status: 200,
      reason,
      ambiguous: false,
      attempts: 1,
    });

  async function fileOf(
    operation: Operation,
    wire: GeneratedImageWire,
  ): Promise<{ bytes: Uint8Array; shown: { method: 'GET' | 'POST'; path: string } }> {
    if (URL_PATTERN.test(wire.image)) {
      const download = await http.download(wire.image);
      // Only the path: a signed URL's query is a credential of sorts.
      return { bytes: download.bytes, shown: { method: 'GET', path: new URL(wire.image).pathname } };
    }
    const shown = { method: 'POST' as const, path: `${base}/${operation}` };
    const text = wire.image.replace(/^data:[^,]*;base64,/i, '').replace(/\s+/g, '');
    if (text === '' || !BASE64_PATTERN.test(text))
      throw unusable(shown.method, shown.path, `image ${wire.id} is neither a URL nor Base64`);
    return { bytes: new Uint8Array(Buffer.from(text, 'base64')), shown };
  }

  async function imageFromWire(operation: Operation, wire: GeneratedImageWire): Promise<GeneratedImage> {
    const { bytes, shown } = await fileOf(operation, wire);
    const format = detectImageFormat(bytes);
    if (format === undefined)
      throw unusable(shown.method, shown.path, `image ${wire.id} is not a webp, jpeg or png file`);
    return {
      id: wire.id,
      seed: wire.seed,
      bytes,
      format,
      nsfwContentDetected: wire.nsfw_content_detected ?? null,
      nsfwScore: wire.nsfw_score ?? null,
    };
  }

  /** The one place where the wire's answer becomes the model. */
  async function generationFromWire(operation: Operation, wire: ImageGenerationResponse): Promise<ImageGeneration> {
    return {
      jobId: wire.id,
      modelVersion: wire.model_version,
      images: await Promise.all(wire.images.map((image) => imageFromWire(operation, image))),
    };
  }

  async function generate(
    operation: Operation,
    body: TextToImageRequest | VariationsRequest | InpaintingRequest,
  ): Promise<ImageGeneration> {
    // Generating again has no side effect (and with seeds gives the same images), so a 5xx or
    // a lost answer is retried like a read.
    const answer = await http.request({
      method: 'POST',
      path: `${base}/${operation}`,
      body,
      idempotent: true,
      response: 'ImageGenerationResponse',
    });
    return generationFromWire(operation, answer);
  }

  return {
    textToImage: (request) => generate('t2i', request),
    variations: (request) => generate('variations', request),
    inpainting: (request) => generate('inpainting', request),
  };
}
