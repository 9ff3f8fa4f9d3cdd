import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DesiredImage, ImageLock, LockedImage } from '../model/index.js';
import { planImages } from '../plan/kinds/image.js';
import { parseImageLock, renderImageLock } from './image-lock.js';

const HASH = 'a'.repeat(64);

function entry(): LockedImage {
  return {
    request: {
      operation: 'variations',
      params: { version: 'v2.0', width: 384, height: 384, image_format: 'png', samples: 1 },
      inputs: { image: { file: 'photo.png', sha256: HASH } },
    },
    requestHash: 'h',
    seeds: [7],
    modelVersion: 'v2.0',
    outputs: [{ path: 'assets/banner.png', sha256: HASH }],
  };
}

const lockText = (images: Record<string, unknown>): string => JSON.stringify({ lockVersion: 1, images });

describe('parseImageLock', () => {
  it('reads back what it writes, a byte-order mark aside', () => {
    const lock: ImageLock = { lockVersion: 1, images: { banner: entry() } };
    const text = renderImageLock(lock);
    expect(parseImageLock(text)).toEqual(lock);
    expect(parseImageLock(`\uFEFF${text}`)).toEqual(lock);
  });

  it('reads every path in the spelling the desired-state file is read in, so that ./x.png and x.png are one file', () => {
    const written = entry();
    written.outputs = [{ path: './assets//banner.png', sha256: HASH }];
    written.request.inputs = { image: { file: './photo.png', sha256: HASH } };
    expect(parseImageLock(lockText({ banner: written }))).toEqual({ lockVersion: 1, images: { banner: entry() } });
  });

  it.each([
    [(image: Record<string, unknown>) => delete image['request'], 'request must be an object'],
    [
      (image: Record<string, unknown>) => (image['request'] = { operation: 'paint', params: {}, inputs: {} }),
      'request.operation must be one of t2i, variations, inpainting',
    ],
    [
      (image: Record<string, unknown>) => (image['request'] = { operation: 't2i', params: [], inputs: {} }),
      'request.params must be an object',
    ],
    [
      (image: Record<string, unknown>) => (image['request'] = { operation: 't2i', params: {} }),
      'request.inputs must be an object',
    ],
    [
      (image: Record<string, unknown>) => (image['request'] = { operation: 't2i', params: {}, inputs: { image: 5 } }),
      'request.inputs.image must be an object',
    ],
    [
      (image: Record<string, unknown>) => (image['request'] = { operation: 't2i', params: {}, inputs: { photo: {} } }),
      'request.inputs.photo is not an input (image, mask, reference_image)',
    ],
    [
      (image: Record<string, unknown>) =>
        (image['request'] = { operation: 't2i', params: {}, inputs: { image: { file: '../x.png', sha256: HASH } } }),
      'request.inputs.image.file "../x.png" leads out',
    ],
    [
      (image: Record<string, unknown>) =>
        (image['request'] = { operation: 't2i', params: {}, inputs: { image: { file: 'x.png', sha256: null } } }),
      'request.inputs.image.sha256 must be a string',
    ],
    [(image: Record<string, unknown>) => delete image['requestHash'], 'requestHash must be a string'],
    [(image: Record<string, unknown>) => (image['modelVersion'] = 2), 'modelVersion must be a string'],
    [(image: Record<string, unknown>) => (image['seeds'] = '7'), 'seeds must be an array'],
    [
      (image: Record<string, unknown>) => (image['seeds'] = [2 ** 32]),
      'seeds[0] must be an integer from 0 to 4294967295',
    ],
    [(image: Record<string, unknown>) => (image['seeds'] = [1, 2]), 'it has 2 seeds for 1 outputs (one each)'],
    [(image: Record<string, unknown>) => (image['outputs'] = {}), 'outputs must be an array'],
    [
      (image: Record<string, unknown>) => (image['outputs'] = [null]),
      'outputs[0] must be an object with path and sha256',
    ],
    [(image: Record<string, unknown>) => (image['outputs'] = [{ sha256: HASH }]), 'outputs[0].path must be a path'],
    [
      (image: Record<string, unknown>) => (image['outputs'] = [{ path: '/etc/passwd', sha256: HASH }]),
      'outputs[0].path "/etc/passwd" is an absolute path',
    ],
    [
      (image: Record<string, unknown>) => (image['outputs'] = [{ path: 'a/../../x.png', sha256: HASH }]),
      'outputs[0].path "a/../../x.png" leads out of the project folder (..)',
    ],
    [
      (image: Record<string, unknown>) => (image['outputs'] = [{ path: 'x\n.png', sha256: HASH }]),
      'outputs[0].path "x\\n.png" has control characters',
    ],
    [
      (image: Record<string, unknown>) => (image['outputs'] = [{ path: 'x.png', sha256: 'ABC' }]),
      'outputs[0].sha256 must be a SHA-256 (64 lowercase hexadecimal digits)',
    ],
  ])('names the entry and the field of a wrong shape (%#)', (spoil, message) => {
    const image = entry() as unknown as Record<string, unknown>;
    spoil(image);
    const parsed = parseImageLock(lockText({ fine: entry(), 'the "spoilt" one': image }));
    expect(parsed).toEqual({ problem: expect.stringContaining(`its entry "the \\"spoilt\\" one": ${message}`) });
  });

  it('refuses what is not a lock of version 1, and never quotes a text that is not JSON', () => {
    const wrong = {
      problem: 'it is not an image lock of version 1 (an object with "lockVersion": 1 and "images" by name)',
    };
    for (const text of ['[]', 'null', '{"lockVersion":2,"images":{}}', '{"lockVersion":1,"images":[]}'])
      expect(parseImageLock(text)).toEqual(wrong);
    expect(parseImageLock('{"lockVersion":1,"images":{"x":5}}')).toEqual({
      problem: 'its entry "x": it is not an object',
    });
    expect(parseImageLock('ADS_ACCESS_TOKEN=s3cr3t\n')).toEqual({ problem: 'it is not JSON' });
    expect(parseImageLock('{\n  "lockVersion": 1,\n  "images": {,}\n}')).toEqual({
      problem: 'it is not JSON (line 3, column 14)',
    });
  });

  it('refuses an entry or a field given twice (JSON.parse keeps the last), naming both places', () => {
    const one = JSON.stringify(entry());
    const hint =
      'keep one of the two and delete the other (`audiences apply --kind image` then rewrites images.lock.json)';
    expect(
      parseImageLock(`{\n  "lockVersion": 1,\n  "images": {\n    "hero": ${one},\n    "hero": ${one}\n  }\n}`),
    ).toEqual({
      problem: 'its entry "hero" is given twice (line 5, column 5, and first at line 4, column 5)',
      hint,
    });
    // The same key however its characters are escaped; a path of the entry named as its other problems are.
    expect(parseImageLock(`{"lockVersion":1,"images":{"hero":${one},"h\\u0065ro":${one}}}`)).toMatchObject({
      problem: expect.stringContaining('its entry "hero" is given twice'),
    });
    const outputs = '"outputs":[{"path":"a.png","sha256":"x"},{"sha256":"y","path":"b.png","path":"c.png"}]';
    expect(parseImageLock(`{"lockVersion":1,"images":{"hero":{${outputs}}}}`)).toEqual({
      problem: 'its entry "hero": outputs[1].path is given twice (line 1, column 106, and first at line 1, column 91)',
      hint,
    });
    // Nested deeper than a recursive reader's stack goes, or a list longer than a call's arguments may be.
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(parseImageLock(`{"lockVersion":1,"images":{"x":{"request":{"operation":"t2i","params":${deep}}}}}`)).toEqual(
      {
        problem: 'its entry "x": request.params must be an object',
      },
    );
    expect(parseImageLock(`{"lockVersion":1,"images":{"x":${deep},"x":[${'0,'.repeat(200_000)}0]}}`)).toMatchObject({
      problem: expect.stringContaining('its entry "x" is given twice'),
    });
    expect(parseImageLock('{"lockVersion":1,"images":{},"lockVersion":1}')).toMatchObject({
      problem: 'the key "lockVersion" is given twice (line 1, column 30, and first at line 1, column 2)',
    });
  });

  it('finds no key given twice where each object gives each once, whatever its strings hold', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(0, 2, '\t'), (extra, space) => {
        const image = entry();
        const lock = { lockVersion: 1, images: { [JSON.stringify(extra)]: image, banner: image } };
        Object.assign(image.request.params, { extra });
        expect(parseImageLock(JSON.stringify(lock, null, space))).not.toHaveProperty('problem');
        const key = Object.keys(extra)[0];
        if (key === undefined) return;
        const twice = JSON.stringify(lock).replace('"extra":{', () => `"extra":{${JSON.stringify(key)}:0,`);
        expect(parseImageLock(twice)).toMatchObject({
          problem: expect.stringMatching(/^its entry ".*": request\.params\.extra\..* is given twice \(line 1,/s),
        });
      }),
    );
  });

  it('never throws, and what it accepts plans without throwing, whatever a field holds', () => {
    const declared: DesiredImage = {
      key: 'banner',
      operation: 'variations',
      params: entry().request.params,
      inputs: { image: { file: 'photo.png' } },
      outputs: ['assets/banner.png'],
    };
    const fields = [
      'request',
      'requestHash',
      'seeds',
      'modelVersion',
      'outputs',
      'request.operation',
      'request.params',
      'request.inputs',
      'request.inputs.image',
      'outputs.0',
      'outputs.0.path',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...fields),
        fc.oneof(fc.constantFrom(null, [], {}, 0, ''), fc.jsonValue()),
        fc.boolean(),
        (field, value, keep) => {
          const image = entry() as unknown as Record<string, unknown>;
          const keys = field.split('.');
          let at = image;
          for (const key of keys.slice(0, -1)) at = at[key] as Record<string, unknown>;
          at[keys.at(-1) as string] = value;
          const parsed = parseImageLock(lockText({ [keep ? 'banner' : 'gone']: image }));
          if ('problem' in parsed) return;
          const files = {
            'photo.png': { status: 'present', sha256: HASH, format: 'png', width: 10, height: 10 } as const,
          };
          planImages([declared], { dir: '.', lock: parsed, lockHash: 'h', files }, true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
