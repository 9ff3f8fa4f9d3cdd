import { crc32 } from 'node:zlib';

/** What a test file holds, described rather than stored: a PNG image carrying a label, or plain text. */
export type FileContent = { png: string } | { text: string };

export function isFileContent(value: unknown): value is FileContent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'png' || keys[0] === 'text') && typeof Object.values(value)[0] === 'string';
}

export function contentBytes(content: FileContent): Uint8Array {
  return 'png' in content ? labelledPng(content.png) : new TextEncoder().encode(content.text);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** One grey pixel, 8 bits deep: width and height 1, bit depth 8, colour type 0, no interlace. */
const HEADER = [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0];

/**
 * The pixel's scanline (filter 0, value 0) as zlib data written by hand in a stored block, so
 * the bytes do not depend on the zlib a machine has: header, block of 2 bytes, Adler-32.
 */
const PIXELS = [0x78, 0x01, 0x01, 0x02, 0x00, 0xfd, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01];

/**
 * A valid 1×1 PNG whose `tEXt` chunk holds `label`: each label has its own bytes (so its own
 * SHA-256), the same on every run and machine, and an image by its content and to a decoder.
 */
export function labelledPng(label: string): Uint8Array {
  const text = [...new TextEncoder().encode('Comment'), 0, ...new TextEncoder().encode(label)];
  const chunks = [chunk('IHDR', HEADER), chunk('tEXt', text), chunk('IDAT', PIXELS), chunk('IEND', [])];
  return Uint8Array.from([...PNG_SIGNATURE, ...chunks.flat()]);
}

function chunk(type: string, data: number[]): number[] {
  const body = Uint8Array.from([...new TextEncoder().encode(type), ...data]);
  return [...uint32(data.length), ...body, ...uint32(crc32(body))];
}

function uint32(value: number): number[] {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}
