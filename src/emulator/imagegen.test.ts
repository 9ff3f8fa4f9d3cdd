import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { EmulatorError } from './http-error.js';
import { decodeBase64, inspectImage, readIsoBmff, renderPattern } from './image-bytes.js';
import { createFileStore, createImagegen, enlargedSize, URL_LIFETIME_MS } from './imagegen.js';
import type { Imagegen } from './imagegen.js';
import { DETAIL } from './imagegen-rules.js';

const BASE_URL = 'http://127.0.0.1:4010';

interface ResponseImage {
  id: string;
  seed: number;
  image: string;
  nsfw_content_detected: boolean | null;
  nsfw_score: number | null;
}
interface Response {
  id: string;
  model_version: string;
  images: ResponseImage[];
}

function setup(): { imagegen: Imagegen; clock: { now: number } } {
  const clock = { now: 1_700_000_000_000 };
  return { imagegen: createImagegen({ baseUrl: () => BASE_URL, now: () => clock.now }), clock };
}

async function generate(
  imagegen: Imagegen,
  operation: 't2i' | 'variations' | 'inpainting',
  body: Record<string, unknown>,
): Promise<Response> {
  const result = await imagegen.handle(operation, body);
  expect(result.status).toBe(200);
  return result.body as Response;
}

const T2I = { version: 'v2.0', prompt: 'a lighthouse at dawn', width: 384, height: 384, return_type: 'base64_string' };

function bytesOf(image: ResponseImage): Buffer {
  return Buffer.from(image.image, 'base64');
}

async function formatAndSize(bytes: Buffer): Promise<[string | undefined, number | undefined, number | undefined]> {
  const meta = await sharp(bytes).metadata();
  return [meta.format, meta.width, meta.height];
}

async function solid(
  width: number,
  height: number,
  rgb: [number, number, number],
  format: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' = 'png',
): Promise<Buffer> {
  const [r, g, b] = rgb;
  return sharp({ create: { width, height, channels: 3, background: { r, g, b } } })
    .toFormat(format)
    .toBuffer();
}

/** A PNG whose left half is black (the region to edit) and right half white. */
async function halfMask(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) pixels.fill(255, y * width + width / 2, (y + 1) * width);
  return sharp(pixels, { raw: { width, height, channels: 1 } })
    .png()
    .toBuffer();
}

async function rejection(promise: Promise<unknown>): Promise<{ status: number; detailCode: number | undefined }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof EmulatorError)) throw error;
    return { status: error.status, detailCode: error.body.extras?.detailCode };
  }
  throw new Error('accepted');
}

// Minimal ISOBMFF writer for HEIC fixtures: the bundled libvips cannot encode HEVC, and only the container is read.
function box(type: string, ...parts: Buffer[]): Buffer {
  const payload = Buffer.concat(parts);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}
const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]): Buffer =>
  box(type, Buffer.from([version, (flags >> 16) & 255, (flags >> 8) & 255, flags & 255]), ...parts);
const u32 = (n: number): Buffer => Buffer.from([(n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255]);
const u16 = (n: number): Buffer => Buffer.from([(n >> 8) & 255, n & 255]);

interface HeicOptions {
  brands?: string[];
  /** ispe properties, in ipco order (1-based indices). */
  sizes: [number, number][];
  /** item id → associated property indices. */
  items?: Record<number, number[]>;
  primary?: number;
  ipmaVersion?: 0 | 1;
  wide?: boolean;
}

function heic(options: HeicOptions): Buffer {
  const [major = 'heic', ...compatible] = options.brands ?? ['heic', 'mif1', 'heic'];
  const ftyp = box('ftyp', Buffer.from(major, 'latin1'), u32(0), ...compatible.map((b) => Buffer.from(b, 'latin1')));
  const ipco = box('ipco', ...options.sizes.map(([w, h]) => fullBox('ispe', 0, 0, u32(w), u32(h))));
  const entries = Object.entries(options.items ?? {}).map(([id, indices]) =>
    Buffer.concat([
      options.ipmaVersion === 1 ? u32(Number(id)) : u16(Number(id)),
      Buffer.from([indices.length]),
      // The high bit marks an essential property; it is not part of the index.
      ...indices.map((index) => (options.wide ? u16(0x8000 | index) : Buffer.from([0x80 | index]))),
    ]),
  );
  const ipma = options.items
    ? [fullBox('ipma', options.ipmaVersion ?? 0, options.wide ? 1 : 0, u32(entries.length), ...entries)]
    : [];
  const pitm = options.primary === undefined ? [] : [fullBox('pitm', 0, 0, u16(options.primary))];
  const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from('pict', 'latin1'), Buffer.alloc(13));
  const meta = fullBox('meta', 0, 0, hdlr, ...pitm, box('iprp', ipco, ...ipma));
  return Buffer.concat([ftyp, meta, box('mdat', Buffer.alloc(16))]);
}

describe('image bytes', () => {
  it('decodes strict Base64 only', () => {
    expect(decodeBase64('aGk=')).toEqual(Buffer.from('hi'));
    expect(decodeBase64('aGkh')).toEqual(Buffer.from('hi!'));
    for (const bad of ['', 'aGk', 'aGk=\n', 'aG k=', 'a-_b', 'data:image/png;base64,aGk=', 'aGk===', '@@@@']) {
      expect(decodeBase64(bad)).toMatchObject({ kind: 'base64' });
    }
  });

  it('reads the HEIC size of the primary item through pitm and ipma', () => {
    const sizes: [number, number][] = [
      [200, 160],
      [100, 80],
    ];
    const items = { 2: [1], 1: [2] };
    expect(readIsoBmff(heic({ sizes, items, primary: 1 }))).toEqual({
      brand: 'heic',
      heic: true,
      size: { width: 100, height: 80 },
    });
    expect(readIsoBmff(heic({ sizes, items, primary: 2 }))?.size).toEqual({ width: 200, height: 160 });
    expect(readIsoBmff(heic({ sizes, items, primary: 1, ipmaVersion: 1, wide: true }))?.size).toEqual({
      width: 100,
      height: 80,
    });
  });

  it('falls back to the largest ispe without a primary item association', () => {
    expect(
      readIsoBmff(
        heic({
          sizes: [
            [64, 48],
            [4032, 3024],
            [512, 384],
          ],
        }),
      )?.size,
    ).toEqual({ width: 4032, height: 3024 });
  });

  it('recognises HEIC by any HEVC brand and tells AVIF apart', () => {
    expect(readIsoBmff(heic({ brands: ['mif1', 'miaf', 'heix'], sizes: [[8, 8]] }))?.heic).toBe(true);
    expect(readIsoBmff(heic({ brands: ['avif', 'mif1', 'miaf'], sizes: [[8, 8]] }))).toMatchObject({
      brand: 'avif',
      heic: false,
    });
    expect(readIsoBmff(Buffer.from('not an iso file at all'))).toBeUndefined();
  });

  it('inspects png, jpeg and webp, widening greyscale to RGB', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const inspected = await inspectImage(await solid(24, 16, [1, 2, 3], format));
      expect(inspected).toMatchObject({ format, width: 24, height: 16 });
      expect('rgb' in inspected && inspected.rgb?.length).toBe(24 * 16 * 3);
    }
    const deep = await sharp({ create: { width: 4, height: 2, channels: 3, background: { r: 10, g: 20, b: 30 } } })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    expect(await inspectImage(deep)).toEqual({
      format: 'png',
      width: 4,
      height: 2,
      rgb: Buffer.from(Array(8).fill([10, 20, 30]).flat()),
    });
    const grey = await sharp({ create: { width: 8, height: 4, channels: 3, background: '#808080' } })
      .toColourspace('b-w')
      .png()
      .toBuffer();
    const inspected = await inspectImage(grey);
    expect('rgb' in inspected && inspected.rgb?.length).toBe(8 * 4 * 3);
  });

  it('reports undecodable and unsupported inputs', async () => {
    expect(await inspectImage(Buffer.from('plain text'))).toMatchObject({ kind: 'undecodable' });
    const png = await solid(64, 64, [9, 9, 9]);
    expect(await inspectImage(png.subarray(0, png.length - 30))).toMatchObject({ kind: 'undecodable' });
    expect(await inspectImage(await solid(8, 8, [9, 9, 9], 'gif'))).toEqual({ kind: 'format', format: 'gif' });
    expect(await inspectImage(await solid(8, 8, [9, 9, 9], 'avif'))).toEqual({ kind: 'format', format: 'avif' });
    expect(await inspectImage(heic({ sizes: [] }))).toMatchObject({ kind: 'undecodable' });
  });

  it('draws the same pixels from the same key and different pixels from another key', () => {
    const key = createHash('sha256').update('one').digest();
    const other = createHash('sha256').update('two').digest();
    expect(renderPattern(key, 40, 24)).toEqual(renderPattern(key, 40, 24));
    expect(renderPattern(key, 40, 24)).toHaveLength(40 * 24 * 3);
    expect(renderPattern(key, 40, 24).equals(renderPattern(other, 40, 24))).toBe(false);
  });
});

describe('text to image', () => {
  it('returns real images of the requested format and size', async () => {
    const { imagegen } = setup();
    for (const image_format of ['webp', 'jpeg', 'png']) {
      const response = await generate(imagegen, 't2i', { ...T2I, width: 392, height: 384, image_format, seed: [7] });
      expect(response.model_version).toBe('v2.0');
      expect(response.images).toHaveLength(1);
      expect(await formatAndSize(bytesOf(response.images[0]!))).toEqual([image_format, 392, 384]);
    }
  });

  it('answers the documented response shape, one image per sample', async () => {
    const { imagegen } = setup();
    const response = await generate(imagegen, 't2i', { ...T2I, samples: 3, seed: [1, 2, 3] });
    expect(response).toEqual({
      id: expect.any(String),
      model_version: 'v2.0',
      images: [1, 2, 3].map((seed) => ({
        id: expect.any(String),
        seed,
        image: expect.any(String),
        nsfw_content_detected: null,
        nsfw_score: null,
      })),
    });
    expect(new Set(response.images.map((image) => image.id)).size).toBe(3);
  });

  it('uses v2.1 and reports it', async () => {
    const { imagegen } = setup();
    const response = await generate(imagegen, 't2i', {
      ...T2I,
      version: 'v2.1',
      width: 768,
      height: 776,
      image_format: 'jpeg',
      image_quality: 30,
      seed: [3],
    });
    expect(response.model_version).toBe('v2.1');
    expect(await formatAndSize(bytesOf(response.images[0]!))).toEqual(['jpeg', 768, 776]);
  });

  it('applies image_quality to lossy formats', async () => {
    const { imagegen } = setup();
    const low = await generate(imagegen, 't2i', { ...T2I, image_format: 'jpeg', image_quality: 5, seed: [4] });
    const high = await generate(imagegen, 't2i', { ...T2I, image_format: 'jpeg', image_quality: 100, seed: [4] });
    expect(bytesOf(low.images[0]!).length).toBeLessThan(bytesOf(high.images[0]!).length);
  });
});

describe('determinism and seeds', () => {
  it('gives byte-identical images for the same request and seed, from separate emulators', async () => {
    const first = await generate(setup().imagegen, 't2i', { ...T2I, seed: [123] });
    const second = await generate(setup().imagegen, 't2i', { ...T2I, seed: [123] });
    expect(first.images[0]!.image).toBe(second.images[0]!.image);
  });

  it('changes the pixels when the seed, the prompt or a content parameter changes', async () => {
    const { imagegen } = setup();
    const pixels = async (patch: Record<string, unknown>): Promise<Buffer> => {
      const response = await generate(imagegen, 't2i', { ...T2I, image_format: 'png', seed: [123], ...patch });
      return sharp(bytesOf(response.images[0]!)).raw().toBuffer();
    };
    const base = await pixels({});
    for (const patch of [
      { seed: [124] },
      { prompt: 'a lighthouse at dusk' },
      { guidance_scale: 6 },
      { negative_prompt: 'fog' },
    ]) {
      expect((await pixels(patch)).equals(base)).toBe(false);
    }
    // Explicit defaults are the same request.
    expect((await pixels({ num_inference_steps: 50, scheduler: 'decoder_ddim_v_prediction' })).equals(base)).toBe(true);
  });

  it('makes each image depend on its own seed only, so one seed of a batch regenerates alone', async () => {
    const { imagegen } = setup();
    const batch = await generate(imagegen, 't2i', { ...T2I, samples: 2, seed: [10, 20] });
    const single = await generate(imagegen, 't2i', { ...T2I, seed: [20] });
    expect(batch.images[0]!.image).not.toBe(batch.images[1]!.image);
    expect(batch.images[1]!.image).toBe(single.images[0]!.image);
  });

  it('picks random seeds when none are given, and sending them back reproduces the images', async () => {
    const { imagegen } = setup();
    for (const seed of [undefined, null]) {
      const random = await generate(imagegen, 't2i', { ...T2I, samples: 2, ...(seed === null ? { seed } : {}) });
      const seeds = random.images.map((image) => image.seed);
      for (const value of seeds) {
        expect(Number.isInteger(value) && value >= 0 && value <= 4_294_967_295).toBe(true);
      }
      const again = await generate(imagegen, 't2i', { ...T2I, samples: 2, seed: seeds });
      expect(again.images.map((image) => image.image)).toEqual(random.images.map((image) => image.image));
    }
  });
});

describe('upscale', () => {
  it.each([
    [{ upscale: true }, [768, 768]],
    [{ upscale: true, scale: 4 }, [1536, 1536]],
    [{ upscale: false, scale: 4 }, [384, 384]],
    [{ upscale: true, scale: 4, width: 640, height: 384 }, [2048, 1229]],
  ])('%j gives %j', async (patch, size) => {
    const { imagegen } = setup();
    const response = await generate(imagegen, 't2i', { ...T2I, seed: [5], ...patch });
    expect(await formatAndSize(bytesOf(response.images[0]!))).toEqual(['webp', ...size]);
  });

  it('caps the longer side at 2048 and keeps the aspect ratio', () => {
    expect(enlargedSize({ width: 1280, height: 768 }, 2)).toEqual({ width: 2048, height: 1229 });
    expect(enlargedSize({ width: 1024, height: 1024 }, 4)).toEqual({ width: 2048, height: 2048 });
    expect(enlargedSize({ width: 512, height: 384 }, 2)).toEqual({ width: 1024, height: 768 });
  });

  it('enlarges the same picture as without upscale', async () => {
    const { imagegen } = setup();
    const plain = await generate(imagegen, 't2i', { ...T2I, image_format: 'png', seed: [8] });
    const big = await generate(imagegen, 't2i', { ...T2I, image_format: 'png', seed: [8], upscale: true });
    const reduced = await sharp(bytesOf(big.images[0]!)).resize(384, 384, { kernel: 'nearest' }).raw().toBuffer();
    expect(reduced.equals(await sharp(bytesOf(plain.images[0]!)).raw().toBuffer())).toBe(true);
  });
});

describe('variations', () => {
  it('returns the requested size whatever the input size, and depends on the input image', async () => {
    const { imagegen } = setup();
    const body = {
      version: 'v2.0',
      width: 400,
      height: 384,
      image_format: 'png',
      return_type: 'base64_string',
      seed: [1],
    };
    const red = await generate(imagegen, 'variations', {
      ...body,
      image: (await solid(50, 30, [200, 0, 0], 'jpeg')).toString('base64'),
    });
    const blue = await generate(imagegen, 'variations', {
      ...body,
      image: (await solid(50, 30, [0, 0, 200], 'webp')).toString('base64'),
    });
    expect(red.model_version).toBe('v2.0');
    expect(await formatAndSize(bytesOf(red.images[0]!))).toEqual(['png', 400, 384]);
    expect(red.images[0]!.image).not.toBe(blue.images[0]!.image);
  });

  it('refuses HEIC (not a recommended format) and other formats', async () => {
    const { imagegen } = setup();
    const body = { version: 'v2.0', width: 384, height: 384 };
    const heicImage = heic({ sizes: [[64, 64]] }).toString('base64');
    expect(await rejection(imagegen.handle('variations', { ...body, image: heicImage }))).toEqual({
      status: 400,
      detailCode: DETAIL.IMAGE_FORMAT_UNSUPPORTED,
    });
    const gif = (await solid(8, 8, [1, 1, 1], 'gif')).toString('base64');
    expect(await rejection(imagegen.handle('variations', { ...body, image: gif }))).toEqual({
      status: 400,
      detailCode: DETAIL.IMAGE_FORMAT_UNSUPPORTED,
    });
  });

  it('refuses invalid Base64 and bytes that are not an image', async () => {
    const { imagegen } = setup();
    const body = { version: 'v2.0', width: 384, height: 384 };
    const png = await solid(32, 32, [1, 2, 3]);
    const cases: [string, number][] = [
      ['not base64!', DETAIL.IMAGE_BASE64],
      [`data:image/png;base64,${png.toString('base64')}`, DETAIL.IMAGE_BASE64],
      [Buffer.from('hello, world').toString('base64'), DETAIL.IMAGE_UNDECODABLE],
      [png.subarray(0, png.length - 30).toString('base64'), DETAIL.IMAGE_UNDECODABLE],
    ];
    for (const [image, detailCode] of cases) {
      expect(await rejection(imagegen.handle('variations', { ...body, image }))).toEqual({ status: 400, detailCode });
    }
  });
});

describe('inpainting', () => {
  it('keeps the image size and the pixels outside the black mask region', async () => {
    const { imagegen } = setup();
    const source: [number, number, number] = [10, 200, 30];
    const response = await generate(imagegen, 'inpainting', {
      prompt: 'a red hat',
      image: (await solid(200, 120, source)).toString('base64'),
      mask: (await halfMask(200, 120)).toString('base64'),
      image_format: 'png',
      return_type: 'base64_string',
      seed: [9],
    });
    expect(response.model_version).toBe('v2.0');
    const bytes = bytesOf(response.images[0]!);
    expect(await formatAndSize(bytes)).toEqual(['png', 200, 120]);
    const pixels = await sharp(bytes).raw().toBuffer();
    let keptRight = true;
    let changedLeft = false;
    for (let y = 0; y < 120; y += 1) {
      for (let x = 0; x < 200; x += 1) {
        const at = (y * 200 + x) * 3;
        const same = pixels[at] === source[0] && pixels[at + 1] === source[1] && pixels[at + 2] === source[2];
        if (x >= 100 && !same) keptRight = false;
        if (x < 100 && !same) changedLeft = true;
      }
    }
    expect(keptRight).toBe(true);
    expect(changedLeft).toBe(true);
  });

  it('accepts HEIC image, mask and reference_image, sized from the container, and upscales', async () => {
    const { imagegen } = setup();
    const response = await generate(imagegen, 'inpainting', {
      version: 'v2.0',
      prompt: 'a red hat',
      image: heic({ sizes: [[320, 240]] }).toString('base64'),
      mask: heic({ sizes: [[320, 240]] }).toString('base64'),
      reference_image: (await solid(100, 100, [5, 5, 5], 'webp')).toString('base64'),
      upscale: true,
      return_type: 'base64_string',
      seed: [1],
    });
    expect(await formatAndSize(bytesOf(response.images[0]!))).toEqual(['webp', 640, 480]);
  });

  it('depends on the reference image', async () => {
    const { imagegen } = setup();
    const body = {
      prompt: 'a red hat',
      image: (await solid(64, 64, [1, 2, 3])).toString('base64'),
      mask: (await halfMask(64, 64)).toString('base64'),
      return_type: 'base64_string',
      seed: [1],
    };
    const without = await generate(imagegen, 'inpainting', body);
    const withReference = await generate(imagegen, 'inpainting', {
      ...body,
      reference_image: (await solid(8, 8, [9, 9, 9])).toString('base64'),
    });
    expect(without.images[0]!.image).not.toBe(withReference.images[0]!.image);
  });

  it('refuses images above 1024 pixels per side, a mask of another size and unsupported formats', async () => {
    const { imagegen } = setup();
    const image = (await solid(64, 64, [1, 2, 3])).toString('base64');
    const mask = (await halfMask(64, 64)).toString('base64');
    const body = { prompt: 'a red hat', image, mask };
    const cases: [Record<string, unknown>, number][] = [
      [{ image: (await solid(1032, 8, [1, 2, 3])).toString('base64') }, DETAIL.IMAGE_TOO_LARGE],
      [
        {
          image: heic({ sizes: [[640, 1025]] }).toString('base64'),
          mask: heic({ sizes: [[640, 1025]] }).toString('base64'),
        },
        DETAIL.IMAGE_TOO_LARGE,
      ],
      [{ reference_image: (await solid(8, 1025, [1, 2, 3])).toString('base64') }, DETAIL.IMAGE_TOO_LARGE],
      [{ mask: (await halfMask(64, 56)).toString('base64') }, DETAIL.MASK_SIZE_MISMATCH],
      [{ mask: heic({ sizes: [[64, 65]] }).toString('base64') }, DETAIL.MASK_SIZE_MISMATCH],
      [{ mask: (await solid(64, 64, [0, 0, 0], 'gif')).toString('base64') }, DETAIL.IMAGE_FORMAT_UNSUPPORTED],
      [{ reference_image: (await solid(8, 8, [0, 0, 0], 'avif')).toString('base64') }, DETAIL.IMAGE_FORMAT_UNSUPPORTED],
      [{ mask: 'AAAA====' }, DETAIL.IMAGE_BASE64],
      [{ image: heic({ sizes: [] }).toString('base64') }, DETAIL.IMAGE_UNDECODABLE],
    ];
    for (const [patch, detailCode] of cases) {
      expect(await rejection(imagegen.handle('inpainting', { ...body, ...patch }))).toEqual({
        status: 400,
        detailCode,
      });
    }
  });
});

describe('return_type url', () => {
  it('serves the file at the returned URL for 10 minutes from the response', async () => {
    const { imagegen, clock } = setup();
    const response = await generate(imagegen, 't2i', {
      ...T2I,
      return_type: undefined,
      samples: 2,
      seed: [31, 32],
      image_format: 'jpeg',
    });
    const base64 = await generate(imagegen, 't2i', { ...T2I, seed: [31], image_format: 'jpeg' });
    const respondedAt = clock.now;
    for (const image of response.images) {
      expect(image.image).toBe(`${BASE_URL}/images/${image.id}.jpeg`);
    }
    const name = response.images[0]!.image.slice(`${BASE_URL}/images/`.length);
    const file = imagegen.file(name);
    expect(file?.contentType).toBe('image/jpeg');
    expect(file?.bytes.toString('base64')).toBe(base64.images[0]!.image);
    expect(await formatAndSize(file!.bytes)).toEqual(['jpeg', 384, 384]);

    clock.now = respondedAt + URL_LIFETIME_MS - 1;
    expect(imagegen.file(name)).toBeDefined();
    clock.now = respondedAt + URL_LIFETIME_MS;
    expect(imagegen.file(name)).toBeUndefined();
    // Going back in time does not resurrect a dropped file.
    clock.now = respondedAt;
    expect(imagegen.file(name)).toBeUndefined();
  });

  it('knows nothing of unknown names', async () => {
    const { imagegen } = setup();
    const response = await generate(imagegen, 't2i', { ...T2I, return_type: 'url', seed: [1] });
    const name = response.images[0]!.image.slice(`${BASE_URL}/images/`.length);
    expect(imagegen.file(name.replace('.webp', '.png'))).toBeUndefined();
    expect(imagegen.file('nothing.webp')).toBeUndefined();
  });
});

describe('file store', () => {
  const file = (size: number) => ({ contentType: 'image/png', bytes: Buffer.alloc(size) });

  it('drops expired files from memory, not only from view', () => {
    const clock = { now: 0 };
    const store = createFileStore(() => clock.now);
    store.put('a.png', file(100), 1000);
    store.put('b.png', file(50), 2000);
    expect(store.size()).toBe(150);
    clock.now = 1000;
    expect(store.get('a.png')).toBeUndefined();
    expect(store.size()).toBe(50);
    clock.now = 2500;
    store.put('c.png', file(10), 3000);
    expect(store.size()).toBe(10);
  });

  it('evicts the oldest files beyond its byte budget', () => {
    const store = createFileStore(() => 0, 100);
    store.put('a.png', file(40), 1000);
    store.put('b.png', file(40), 1000);
    store.put('c.png', file(40), 1000);
    expect(store.get('a.png')).toBeUndefined();
    expect(store.get('b.png')?.bytes).toHaveLength(40);
    expect(store.get('c.png')?.bytes).toHaveLength(40);
    expect(store.size()).toBe(80);
  });
});

describe('nsfw_checker', () => {
  it('leaves the nsfw fields null unless asked', async () => {
    const { imagegen } = setup();
    for (const nsfw_checker of [undefined, false]) {
      const response = await generate(imagegen, 't2i', { ...T2I, nsfw_checker, seed: [1] });
      expect(response.images[0]).toMatchObject({ nsfw_content_detected: null, nsfw_score: null });
    }
  });

  it('scores deterministically and flags prompts with the word "unsafe"', async () => {
    const { imagegen } = setup();
    const check = async (prompt: string, seed: number): Promise<ResponseImage> =>
      (await generate(imagegen, 't2i', { ...T2I, prompt, nsfw_checker: true, seed: [seed] })).images[0]!;
    const safe = await check('a lighthouse', 1);
    expect(safe.nsfw_content_detected).toBe(false);
    expect(safe.nsfw_score).toBeGreaterThanOrEqual(0);
    expect(safe.nsfw_score).toBeLessThan(0.5);
    expect((await check('a lighthouse', 1)).nsfw_score).toBe(safe.nsfw_score);
    const flagged = await check('an UNSAFE scene', 1);
    expect(flagged.nsfw_content_detected).toBe(true);
    expect(flagged.nsfw_score).toBeGreaterThanOrEqual(0.5);
    expect(flagged.nsfw_score).toBeLessThanOrEqual(1);
    expect((await check('unsafety rules', 1)).nsfw_content_detected).toBe(false);
  });

  it('runs on inpainting and variations too', async () => {
    const { imagegen } = setup();
    const image = (await solid(64, 64, [1, 2, 3])).toString('base64');
    const mask = (await halfMask(64, 64)).toString('base64');
    const inpainted = await generate(imagegen, 'inpainting', { prompt: 'unsafe', image, mask, nsfw_checker: true });
    expect(inpainted.images[0]!.nsfw_content_detected).toBe(true);
    const varied = await generate(imagegen, 'variations', {
      version: 'v2.0',
      image,
      width: 384,
      height: 384,
      nsfw_checker: true,
    });
    expect(varied.images[0]!.nsfw_content_detected).toBe(false);
    expect(typeof varied.images[0]!.nsfw_score).toBe('number');
  });
});

describe('request rules through handle', () => {
  it('rejects before generating anything', async () => {
    const { imagegen } = setup();
    expect(await rejection(imagegen.handle('t2i', { ...T2I, width: 1024 }))).toEqual({
      status: 400,
      detailCode: DETAIL.SIZE_OUT_OF_BOUNDS,
    });
    expect(await rejection(imagegen.handle('inpainting', { ...T2I }))).toEqual({
      status: 400,
      detailCode: DETAIL.NOT_ACCEPTED,
    });
  });
});
