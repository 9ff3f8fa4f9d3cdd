import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import type { TextToImageRequest } from '../../src/api/generated/wire.js';
import type { HttpClient } from '../../src/api/http.js';
import { createImageClient, type ImageClient } from '../../src/api/imagegen.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { detectImageFormat } from '../../src/model/index.js';
import { emulatorCall, startProxy, transport } from './support.js';

let emulator: RunningEmulator;
let http: HttpClient;
let images: ImageClient;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  http = transport({
    service: 'imagegen',
    baseUrl: emulator.url,
    headers: { Authorization: `AppKey ${emulator.appKey}` },
  });
  images = createImageClient(http);
});
afterAll(async () => {
  await http.close();
  await emulator.close();
});
beforeEach(async () => {
  await emulatorCall(emulator, 'DELETE', '/_emulator/requests');
});

async function requestLog(): Promise<Array<{ method: string; path: string; auth: string; status: number }>> {
  return (
    (await emulatorCall(emulator, 'GET', '/_emulator/requests')) as {
      requests: Array<{ method: string; path: string; auth: string; status: number }>;
    }
  ).requests;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

describe('text to image', () => {
  it('downloads a URL result at once and detects its format from the bytes', async () => {
    const result = await images.textToImage({
      version: 'v2.0',
      prompt: 'a spring picnic, watercolor',
      width: 512,
      height: 384,
      seed: [42],
    });
    expect(result.jobId).toEqual(expect.any(String));
    expect(result.modelVersion).toBe('v2.0');
    expect(result.images).toHaveLength(1);
    const [image] = result.images;
    expect(image).toMatchObject({ seed: 42, format: 'webp', nsfwContentDetected: null, nsfwScore: null });
    expect(await sharp(image?.bytes).metadata()).toMatchObject({ format: 'webp', width: 512, height: 384 });
    const log = await requestLog();
    expect(
      log.map((entry) => `${entry.method} ${entry.path.replace(/[0-9a-f-]{36}/, 'ID')} ${String(entry.status)}`),
    ).toEqual(['POST /v2/inference/imagegen/t2i 200', 'GET /images/ID.webp 200']);
    expect(log[0]?.auth).toBe('AppKey');
  });

  it('decodes a Base64 result: the same file as behind the URL, per seed', async () => {
    const request: TextToImageRequest = {
      version: 'v2.0',
      prompt: 'a lighthouse, unsafe at night',
      width: 384,
      height: 384,
      image_format: 'png',
      samples: 2,
      seed: [1, 2],
      nsfw_checker: true,
    };
    const viaBase64 = await images.textToImage({ ...request, return_type: 'base64_string' });
    const viaUrl = await images.textToImage({ ...request, return_type: 'url' });
    expect(viaBase64.images.map((image) => [image.seed, image.format, image.nsfwContentDetected])).toEqual([
      [1, 'png', true],
      [2, 'png', true],
    ]);
    expect(viaBase64.images[0]?.nsfwScore).toBeGreaterThanOrEqual(0.9);
    expect(
      viaBase64.images.map((image) =>
        Buffer.from(image.bytes).equals(Buffer.from(viaUrl.images[viaBase64.images.indexOf(image)]?.bytes ?? [])),
      ),
    ).toEqual([true, true]);
    expect(Buffer.from(viaBase64.images[0]?.bytes ?? []).equals(Buffer.from(viaBase64.images[1]?.bytes ?? []))).toBe(
      false,
    );
    expect((await requestLog()).filter((entry) => entry.method === 'GET')).toHaveLength(2);
  });
});

describe('variations and inpainting', () => {
  it('variations of a given image, in the requested format', async () => {
    const [source] = (
      await images.textToImage({
        version: 'v2.0',
        prompt: 'a cat',
        width: 384,
        height: 384,
        image_format: 'png',
        return_type: 'base64_string',
        seed: [7],
      })
    ).images;
    const result = await images.variations({
      version: 'v2.0',
      image: base64(source?.bytes ?? new Uint8Array()),
      width: 448,
      height: 384,
      image_format: 'jpeg',
      seed: [3],
    });
    expect(result.images.map((image) => [image.seed, image.format])).toEqual([[3, 'jpeg']]);
    expect(await sharp(result.images[0]?.bytes).metadata()).toMatchObject({ width: 448, height: 384 });
  });

  it('inpainting keeps the source outside the black mask', async () => {
    const source = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const mask = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#000000' } })
      .composite([
        { input: { create: { width: 64, height: 24, channels: 3, background: '#ffffff' } }, top: 24, left: 0 },
      ])
      .png()
      .toBuffer();
    const result = await images.inpainting({
      prompt: 'a red balloon',
      image: base64(source),
      mask: base64(mask),
      image_format: 'png',
      return_type: 'base64_string',
      seed: [5],
    });
    const [image] = result.images;
    expect(result.modelVersion).toBe('v2.0');
    expect(image?.format).toBe('png');
    const { data, info } = await sharp(image?.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([64, 48]);
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    expect(pixel(10, 40)).toEqual([0x33, 0x66, 0xcc]);
  });
});

describe('failures', () => {
  it('a rule violation is an ApiError naming the operation and the detail code', async () => {
    const error = await images
      .textToImage({ version: 'v2.0', prompt: 'x', width: 500, height: 384 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      service: 'imagegen',
      method: 'POST',
      path: '/v2/inference/imagegen/t2i',
      status: 400,
      detailCode: 7010,
      attempts: 1,
      ambiguous: false,
    });
  });

  it('a wrong key is 401 with a hint at IMAGEGEN_API_KEY', async () => {
    const wrong = transport({
      service: 'imagegen',
      baseUrl: emulator.url,
      headers: { Authorization: 'AppKey not-the-key' },
    });
    try {
      const error = await createImageClient(wrong)
        .textToImage({ version: 'v2.0', prompt: 'x', width: 384, height: 384 })
        .catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'API_UNAUTHORIZED', status: 401, detailCode: 2003 });
      expect((error as ApiError).hint).toContain('IMAGEGEN_API_KEY');
    } finally {
      await wrong.close();
    }
  });

  it('a generation whose answer was lost is retried (it has no side effect)', async () => {
    let first = true;
    const proxy = await startProxy(emulator.url, (request) => {
      if (request.startsWith('POST ') && first) {
        first = false;
        return '500-after';
      }
      return 'pass';
    });
    const proxied = transport({
      service: 'imagegen',
      baseUrl: proxy.url,
      headers: { Authorization: `AppKey ${emulator.appKey}` },
    });
    try {
      const result = await createImageClient(proxied).textToImage({
        version: 'v2.0',
        prompt: 'a boat',
        width: 384,
        height: 384,
        seed: [9],
        return_type: 'base64_string',
      });
      expect(result.images.map((image) => image.seed)).toEqual([9]);
      expect(proxy.seen.filter((request) => request.startsWith('POST '))).toHaveLength(2);
    } finally {
      await proxied.close();
      await proxy.close();
    }
  });
});

describe('detectImageFormat', () => {
  it('reads the magic numbers of the three formats and nothing else', async () => {
    const pixel = sharp({ create: { width: 2, height: 2, channels: 3, background: '#fff' } });
    expect(detectImageFormat(await pixel.clone().png().toBuffer())).toBe('png');
    expect(detectImageFormat(await pixel.clone().jpeg().toBuffer())).toBe('jpeg');
    expect(detectImageFormat(await pixel.clone().webp().toBuffer())).toBe('webp');
    expect(detectImageFormat(await pixel.clone().gif().toBuffer())).toBeUndefined();
    expect(detectImageFormat(new TextEncoder().encode('RIFF0000WAVE'))).toBeUndefined();
    expect(detectImageFormat(new Uint8Array([0x89, 0x50]))).toBeUndefined();
  });
});
