/**
 * Image bytes for the image-generation emulator: strict Base64 decoding, format detection of input images
 * (sharp for webp/png/jpeg, our own ISOBMFF reader for HEIC, which the bundled libvips cannot decode),
 * the deterministic picture drawn from a 32-byte key, and the encoding of outputs.
 */
import sharp from 'sharp';

export type InputFormat = 'webp' | 'png' | 'jpeg' | 'heic';
export type OutputFormat = 'webp' | 'jpeg' | 'png';

export interface InspectedImage {
  format: InputFormat;
  width: number;
  height: number;
  /** Decoded sRGB pixels, 3 bytes per pixel; null for HEIC, whose pixels cannot be decoded here. */
  rgb: Buffer | null;
}

/** Why an input image was refused; the caller maps each reason to its own detail code. */
export type ImageProblem =
  { kind: 'base64'; message: string } | { kind: 'undecodable'; message: string } | { kind: 'format'; format: string };

// Standard alphabet with padding (what every mainstream encoder emits). Whitespace, line breaks, the URL-safe
// alphabet and `data:` URL prefixes are refused so that a client which sends them is caught here.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function decodeBase64(text: string): Buffer | { kind: 'base64'; message: string } {
  if (text.length === 0) return { kind: 'base64', message: 'is empty' };
  if (text.startsWith('data:')) return { kind: 'base64', message: 'must be plain Base64, not a data: URL' };
  if (!BASE64.test(text)) {
    return { kind: 'base64', message: 'is not valid Base64 (standard alphabet, padded, no whitespace)' };
  }
  return Buffer.from(text, 'base64');
}

/** Reads the format and stored pixel size (EXIF orientation is not applied) and, except for HEIC, the pixels. */
export async function inspectImage(bytes: Buffer): Promise<InspectedImage | ImageProblem> {
  const iso = readIsoBmff(bytes);
  if (iso?.heic) {
    if (!iso.size) return { kind: 'undecodable', message: 'is a HEIC file without an image size (ispe)' };
    return { format: 'heic', ...iso.size, rgb: null };
  }
  let format: string | undefined;
  try {
    format = (await sharp(bytes).metadata()).format;
  } catch {
    return { kind: 'undecodable', message: 'is not a decodable image' };
  }
  // libvips reports AVIF (and any non-HEVC HEIF) as "heif": only true HEIC is accepted, and that was handled above.
  if (format === 'heif') format = iso?.brand === 'avif' || iso?.brand === 'avis' ? 'avif' : 'heif';
  if (format !== 'webp' && format !== 'png' && format !== 'jpeg')
    return { kind: 'format', format: format ?? 'unknown' };
  try {
    const { data, info } = await sharp(bytes, { failOn: 'warning' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    // toColourspace('srgb') also widens greyscale to three channels and narrows 16-bit samples to 8 bits.
    if (info.channels !== 3)
      return { kind: 'undecodable', message: `has ${info.channels} colour channels after conversion to sRGB` };
    return { format, width: info.width, height: info.height, rgb: data };
  } catch {
    return { kind: 'undecodable', message: 'is truncated or corrupt' };
  }
}

export function isImageProblem(value: unknown): value is ImageProblem {
  return typeof value === 'object' && value !== null && 'kind' in value;
}

const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);

interface IsoBmffInfo {
  brand: string;
  heic: boolean;
  size: { width: number; height: number } | undefined;
}

interface Box {
  type: string;
  /** Offset of the payload (after the header). */
  start: number;
  end: number;
}

function* boxes(bytes: Buffer, start: number, end: number): Generator<Box> {
  let at = start;
  while (at + 8 <= end) {
    let size = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > end) return;
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end) return;
    yield { type, start: at + header, end: at + size };
    at += size;
  }
}

function child(bytes: Buffer, parent: Box, type: string, skip = 0): Box | undefined {
  for (const box of boxes(bytes, parent.start + skip, parent.end)) if (box.type === type) return box;
  return undefined;
}

/**
 * A HEIC file is an ISOBMFF file whose `ftyp` names an HEVC brand. Its size is the `ispe` property of the primary
 * item (`pitm` + `ipma`); files without that association fall back to the largest `ispe`, which is the primary image
 * in practice (thumbnails and grid tiles are smaller).
 */
export function readIsoBmff(bytes: Buffer): IsoBmffInfo | undefined {
  if (bytes.length < 16 || bytes.toString('latin1', 4, 8) !== 'ftyp') return undefined;
  const top = [...boxes(bytes, 0, bytes.length)];
  const ftyp = top[0];
  if (!ftyp || ftyp.type !== 'ftyp' || ftyp.end - ftyp.start < 8) return undefined;
  const brand = bytes.toString('latin1', ftyp.start, ftyp.start + 4);
  const brands = [brand];
  for (let at = ftyp.start + 8; at + 4 <= ftyp.end; at += 4) brands.push(bytes.toString('latin1', at, at + 4));
  const heic = brands.some((b) => HEIC_BRANDS.has(b));
  const meta = top.find((box) => box.type === 'meta');
  return { brand, heic, size: meta ? primarySize(bytes, meta) : undefined };
}

function primarySize(bytes: Buffer, meta: Box): { width: number; height: number } | undefined {
  // meta, pitm, ipma and ispe are full boxes: 4 bytes of version and flags precede their content.
  const iprp = child(bytes, meta, 'iprp', 4);
  const ipco = iprp && child(bytes, iprp, 'ipco');
  if (!ipco) return undefined;
  const properties = [...boxes(bytes, ipco.start, ipco.end)];
  const sizes = new Map<number, { width: number; height: number }>();
  properties.forEach((box, index) => {
    if (box.type === 'ispe' && box.end - box.start >= 12) {
      sizes.set(index + 1, { width: bytes.readUInt32BE(box.start + 4), height: bytes.readUInt32BE(box.start + 8) });
    }
  });
  const primary = primaryItem(bytes, meta);
  const ipma = child(bytes, iprp, 'ipma');
  if (primary !== undefined && ipma) {
    for (const index of associations(bytes, ipma, primary)) {
      const size = sizes.get(index);
      if (size) return size;
    }
  }
  let largest: { width: number; height: number } | undefined;
  for (const size of sizes.values()) {
    if (!largest || size.width * size.height > largest.width * largest.height) largest = size;
  }
  return largest;
}

function primaryItem(bytes: Buffer, meta: Box): number | undefined {
  const pitm = child(bytes, meta, 'pitm', 4);
  if (!pitm || pitm.end - pitm.start < 6) return undefined;
  return bytes[pitm.start] === 0 ? bytes.readUInt16BE(pitm.start + 4) : bytes.readUInt32BE(pitm.start + 4);
}

/** Property indices (1-based into ipco) associated with one item. */
function associations(bytes: Buffer, ipma: Box, item: number): number[] {
  const version = bytes[ipma.start] ?? 0;
  const wide = ((bytes[ipma.start + 3] ?? 0) & 1) === 1;
  let at = ipma.start + 4;
  if (at + 4 > ipma.end) return [];
  const count = bytes.readUInt32BE(at);
  at += 4;
  for (let entry = 0; entry < count; entry += 1) {
    const idSize = version < 1 ? 2 : 4;
    if (at + idSize + 1 > ipma.end) return [];
    const id = idSize === 2 ? bytes.readUInt16BE(at) : bytes.readUInt32BE(at);
    at += idSize;
    const n = bytes[at] ?? 0;
    at += 1;
    const indices: number[] = [];
    for (let i = 0; i < n; i += 1) {
      if (at + (wide ? 2 : 1) > ipma.end) return [];
      indices.push(wide ? bytes.readUInt16BE(at) & 0x7fff : (bytes[at] ?? 0) & 0x7f);
      at += wide ? 2 : 1;
    }
    if (id === item) return indices;
  }
  return [];
}

/**
 * Draws a deterministic picture from a 32-byte key: a two-colour gradient in a key-chosen direction, bands of a
 * third colour and a disc of a fourth. Integer arithmetic only, so the pixels do not depend on the platform's
 * floating-point functions. Coordinates are normalised, so the same key gives the same picture at any size.
 */
export function renderPattern(key: Buffer, width: number, height: number): Buffer {
  const k = (i: number): number => key[i % key.length] ?? 0;
  const colour = (i: number): [number, number, number] => [k(i), k(i + 1), k(i + 2)];
  const [from, to, band, disc] = [colour(0), colour(3), colour(6), colour(9)];
  const dx = (k(12) % 9) - 4 || 1;
  const dy = (k(13) % 9) - 4;
  // u·dx + v·dy runs from `low` to `low + span` over the picture; span > 0 because dx is never 0.
  const low = 255 * (Math.min(dx, 0) + Math.min(dy, 0));
  const span = 255 * (Math.abs(dx) + Math.abs(dy));
  const bandShift = 3 + (k(14) % 3);
  const bandPhase = k(15);
  const cx = k(16);
  const cy = k(17);
  const r2 = (32 + (k(18) % 64)) ** 2;
  const out = Buffer.alloc(width * height * 3);
  let at = 0;
  for (let y = 0; y < height; y += 1) {
    const v = Math.floor((y * 256) / height);
    for (let x = 0; x < width; x += 1) {
      const u = Math.floor((x * 256) / width);
      const s = u * dx + v * dy;
      for (let c = 0; c < 3; c += 1) {
        let value: number;
        if ((u - cx) ** 2 + (v - cy) ** 2 < r2) value = disc[c] ?? 0;
        else if ((((s + bandPhase) >> bandShift) & 7) === 0) value = band[c] ?? 0;
        else value = Math.floor(((from[c] ?? 0) * (span - (s - low)) + (to[c] ?? 0) * (s - low)) / span);
        out[at + c] = value;
      }
      at += 3;
    }
  }
  return out;
}

/** Encodes RGB pixels, enlarged with nearest-neighbour sampling (exact, hence reproducible) when the size grows. */
export async function encodeImage(
  rgb: Buffer,
  size: { width: number; height: number },
  target: { width: number; height: number },
  format: OutputFormat,
  quality: number,
): Promise<Buffer> {
  let pipeline = sharp(rgb, { raw: { ...size, channels: 3 } });
  if (target.width !== size.width || target.height !== size.height) {
    pipeline = pipeline.resize(target.width, target.height, { kernel: 'nearest', fit: 'fill' });
  }
  // PNG is lossless: image_quality has nothing to act on there.
  if (format === 'webp') return pipeline.webp({ quality }).toBuffer();
  if (format === 'jpeg') return pipeline.jpeg({ quality }).toBuffer();
  return pipeline.png().toBuffer();
}
