import { describe, expect, it } from 'vitest';
import type { ImageRequest } from '../../model/index.js';
import { sizeText } from './image.js';

const request = (operation: ImageRequest['operation'], params: Partial<ImageRequest['params']>): ImageRequest => ({
  operation,
  params: { image_format: 'png', samples: 1, ...params },
  inputs: {},
});

describe('sizeText', () => {
  it.each([
    ['as asked', request('t2i', { width: 768, height: 1024 }), '768×1024'],
    [
      'enlarged by the default scale',
      request('variations', { width: 512, height: 384, upscale: true }),
      '512×384, enlarged ×2',
    ],
    [
      'enlarged up to the cap',
      request('t2i', { width: 1024, height: 1024, upscale: true, scale: 2 }),
      '1024×1024, enlarged ×2',
    ],
    [
      'enlarged past the cap',
      request('t2i', { width: 1280, height: 768, upscale: true, scale: 4 }),
      '1280×768, enlarged ×4 (at most 2048 a side)',
    ],
    ['a scale without upscale', request('t2i', { width: 768, height: 768, upscale: false, scale: 4 }), '768×768'],
    ['inpainting keeps the input', request('inpainting', {}), 'that of the input image'],
    [
      'inpainting enlarged',
      request('inpainting', { upscale: true }),
      'that of the input image, enlarged ×2 (at most 2048 a side)',
    ],
  ])('%s', (_, asked, expected) => {
    expect(sizeText(asked)).toBe(expected);
  });
});
