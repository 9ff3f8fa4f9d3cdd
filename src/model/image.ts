/** The file formats the image-generation service produces. */
export type ImageFormat = 'webp' | 'jpeg' | 'png';

/** One generated image, downloaded or decoded: the bytes are the file. */
export interface GeneratedImage {
  id: string;
  /** Sending it again with the same request reproduces the same image. */
  seed: number;
  bytes: Uint8Array;
  /** Read from the bytes' magic numbers, never trusted from the request. */
  format: ImageFormat;
  /** Null when the request did not ask for the unsafe-content check. */
  nsfwContentDetected: boolean | null;
  nsfwScore: number | null;
}

/** The result of one generation job (text to image, variations or inpainting). */
export interface ImageGeneration {
  jobId: string;
  modelVersion: string;
  images: GeneratedImage[];
}

const startsWith = (bytes: Uint8Array, offset: number, expected: readonly number[]): boolean =>
  bytes.length >= offset + expected.length && expected.every((byte, index) => bytes[offset + index] === byte);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
const RIFF = [0x52, 0x49, 0x46, 0x46];
const WEBP = [0x57, 0x45, 0x42, 0x50];

/** The format of an image file from its first bytes; undefined when it is none of the three. */
export function detectImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, 0, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, 0, JPEG_SIGNATURE)) return 'jpeg';
  if (startsWith(bytes, 0, RIFF) && startsWith(bytes, 8, WEBP)) return 'webp';
  return undefined;
}
