import { describe, expect, it } from 'vitest';
import { checkImageRules } from './image-rules.js';
import { validateConfig } from './index.js';

/** A file with the given images (YAML list items, indented under `images:`) and no audiences. */
function file(images: string, extra = ''): string {
  return `adAccountId: 1234\n${extra}images:\n${images}audiences: []\n`;
}

const T2I = `  - name: banner
    prompt: a spring picnic in a park
    version: v2.0
    width: 512
    height: 512
    output: assets/banner.webp
`;

/** Every problem's message, which starts with where it is (positions are checked separately). */
function problems(text: string): string[] {
  const result = validateConfig(text, 'audiences.yaml');
  return result.ok ? [] : result.issues.map((issue) => issue.message);
}

function withField(field: string): string {
  return T2I.replace('    output:', `    ${field}\n    output:`);
}

describe('images in validate', () => {
  it('accepts a text-to-image entry and expands its shorthands', () => {
    const result = validateConfig(file(T2I), 'audiences.yaml');
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.value.images).toEqual([
      {
        key: 'banner',
        operation: 't2i',
        params: {
          version: 'v2.0',
          prompt: 'a spring picnic in a park',
          width: 512,
          height: 512,
          image_format: 'webp',
          samples: 1,
        },
        inputs: {},
        outputs: ['assets/banner.webp'],
      },
    ]);
  });

  it('infers the operation from the inputs and numbers the files of several samples', () => {
    const text = file(`${T2I}  - name: variant
    image: { from: banner }
    version: v2.0
    width: 384
    height: 640
    samples: 3
    output: variant.png
  - name: fixed
    prompt: a red kite
    image: source.jpg
    mask: { file: mask.png }
    output: fixed.jpg
`);
    const result = validateConfig(text, 'audiences.yaml');
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const [, variant, fixed] = result.value.images ?? [];
    expect(variant).toMatchObject({
      operation: 'variations',
      inputs: { image: { from: 'banner' } },
      outputs: ['variant-1.png', 'variant-2.png', 'variant-3.png'],
    });
    expect(fixed).toMatchObject({
      operation: 'inpainting',
      params: { version: 'v2.0', image_format: 'jpeg' },
      inputs: { image: { file: 'source.jpg' }, mask: { file: 'mask.png' } },
    });
  });

  it('reports a problem at the line and column of the offending value', () => {
    const result = validateConfig(file(T2I.replace('width: 512', 'width: 500')), 'audiences.yaml');
    expect(result.ok ? [] : result.issues.map((issue) => [issue.line, issue.column, issue.message])).toEqual([
      [6, 12, 'images[0].width: must be a multiple of 8, got 500'],
    ]);
  });

  it.each([
    [
      'a parameter the operation does not take',
      withField('operation: t2i\n    mask: m.png'),
      'images[0].mask: text to image (t2i) does not take mask',
    ],
    [
      'a prompt on variations',
      `  - name: v\n    image: a.png\n    prompt: x\n    version: v2.0\n    width: 512\n    height: 512\n    output: v.webp\n`,
      'images[0].prompt: variations does not take prompt',
    ],
    [
      'width on inpainting',
      `  - name: i\n    prompt: x\n    image: a.png\n    mask: m.png\n    width: 512\n    output: i.webp\n`,
      'images[0].width: inpainting does not take width',
    ],
    [
      'scheduler on inpainting',
      `  - name: i\n    prompt: x\n    image: a.png\n    mask: m.png\n    scheduler: decoder_ddim_v_prediction\n    output: i.webp\n`,
      'images[0].scheduler: inpainting does not take scheduler',
    ],
    [
      'prior steps on variations',
      `  - name: v\n    image: a.png\n    version: v2.0\n    width: 512\n    height: 512\n    prior_num_inference_steps: 20\n    output: v.webp\n`,
      'images[0].prior_num_inference_steps: variations does not take',
    ],
    [
      'a missing required parameter',
      T2I.replace('    version: v2.0\n', ''),
      'images[0].name: text to image (t2i) needs version',
    ],
    [
      'a missing mask on explicit inpainting',
      `  - name: i\n    operation: inpainting\n    prompt: x\n    image: a.png\n    output: i.webp\n`,
      'images[0].operation: inpainting needs mask',
    ],
    [
      'inpainting with v2.1',
      `  - name: i\n    prompt: x\n    image: a.png\n    mask: m.png\n    version: v2.1\n    output: i.webp\n`,
      'images[0].version: inpainting takes only version v2.0',
    ],
    [
      'a v2.0 size above 640',
      T2I.replace('width: 512', 'width: 768'),
      'images[0].width: 768 is outside 384 to 640, the widths of version v2.0',
    ],
    [
      'a v2.1 size below 768',
      T2I.replace('v2.0', 'v2.1'),
      'images[0].width: 512 is outside 768 to 1280, the widths of version v2.1',
    ],
    [
      'a size beyond every version',
      T2I.replace('height: 512', 'height: 1288'),
      'images[0].height: must be at most 1280, got 1288',
    ],
    [
      'a size not a multiple of 8',
      T2I.replace('height: 512', 'height: 515'),
      'images[0].height: must be a multiple of 8, got 515',
    ],
    [
      'a scheduler of the other version',
      T2I.replace('v2.0', 'v2.1')
        .replace('width: 512', 'width: 1024')
        .replace('height: 512', 'height: 1024')
        .replace('    output:', '    scheduler: decoder_ddim_v_prediction\n    output:'),
      'images[0].scheduler: decoder_ddim_v_prediction is not a scheduler of version v2.1',
    ],
    ['an unknown scheduler', withField('scheduler: euler'), 'images[0].scheduler: unknown value "euler"'],
    ['fewer seeds than samples', withField('samples: 2\n    seed: [1]'), 'images[0].seed: lists 1 seed for 2 samples'],
    ['seeds without samples', withField('seed: [1, 2]'), 'images[0].seed: lists 2 seeds for 1 sample'],
    ['a seed out of bounds', withField('seed: [4294967296]'), 'images[0].seed[0]: must be at most 4294967295'],
    ['a negative seed', withField('seed: [-1]'), 'images[0].seed[0]: must be at least 0'],
    ['too many samples', withField('samples: 9'), 'images[0].samples: must be at most 8'],
    ['image_quality 0', withField('image_quality: 0'), 'images[0].image_quality: must be at least 1'],
    ['scale 3', withField('upscale: true\n    scale: 3'), 'images[0].scale: unknown value 3'],
    [
      'decoder steps below 10',
      withField('num_inference_steps: 5'),
      'images[0].num_inference_steps: must be at least 10',
    ],
    [
      'prior steps above 100',
      withField('prior_num_inference_steps: 101'),
      'images[0].prior_num_inference_steps: must be at most 100',
    ],
    ['guidance above 20', withField('guidance_scale: 20.5'), 'images[0].guidance_scale: must be at most 20'],
    [
      'prior guidance below 1',
      withField('prior_guidance_scale: 0.5'),
      'images[0].prior_guidance_scale: must be at least 1',
    ],
    [
      'face_refiner out of bounds',
      withField('face_refiner: { restoration_repeats: 11, weight_sft: 1.5 }'),
      'images[0].face_refiner.restoration_repeats: must be at most 10',
    ],
    [
      'an unknown face_refiner field',
      withField('face_refiner: { strength: 1 }'),
      'images[0].face_refiner.strength: unknown field',
    ],
    ['a jpg image_format', withField('image_format: jpg'), 'images[0].image_format: unknown value "jpg"'],
    ['a return_type of the wrong case', withField('return_type: URL'), 'images[0].return_type: unknown value "URL"'],
    [
      'a prompt too long',
      T2I.replace('a spring picnic in a park', 'a'.repeat(2049)),
      'images[0].prompt: is 2049 characters long, more than the 2048 allowed',
    ],
    [
      'a prompt in Korean',
      T2I.replace('a spring picnic in a park', '공원의 봄 소풍'),
      'images[0].prompt: must be English',
    ],
    [
      'a negative prompt in Cyrillic',
      withField('negative_prompt: дождь'),
      'images[0].negative_prompt: must be English',
    ],
    ['a blank prompt', T2I.replace('a spring picnic in a park', '"   "'), 'images[0].prompt: is only spaces'],
    ['a blank name', T2I.replace('name: banner', 'name: "  "'), 'images[0].name: is only spaces'],
    [
      'an output that climbs out',
      T2I.replace('assets/banner.webp', '../banner.webp'),
      'images[0].output: "../banner.webp" leads out of the project folder (..)',
    ],
    [
      'an absolute output',
      T2I.replace('assets/banner.webp', '/tmp/banner.webp'),
      'images[0].output: "/tmp/banner.webp" is an absolute path',
    ],
    [
      'an input that climbs out',
      `  - name: v\n    image: ../secret.png\n    version: v2.0\n    width: 512\n    height: 512\n    output: v.webp\n`,
      'images[0].image: "../secret.png" leads out of the project folder (..)',
    ],
    [
      'an extension that names another format',
      withField('image_format: png'),
      'images[0].output: the extension names webp, but image_format is png',
    ],
    [
      'an output without a format',
      T2I.replace('assets/banner.webp', 'assets/banner'),
      'images[0].output: has no image extension',
    ],
    ['an unknown field', withField('steps: 30'), 'images[0].steps: unknown field'],
    ['an unknown operation', withField('operation: upscale'), 'images[0].operation: unknown value "upscale"'],
  ])('refuses %s', (_name, images, expected) => {
    expect(problems(file(images)).join('\n')).toContain(expected);
  });

  it('refuses, as in audience names, a control character in a name or a file name, at the line and column of the value', () => {
    const found = (images: string) => {
      const result = validateConfig(file(images), 'audiences.yaml');
      return result.ok
        ? []
        : result.issues.map((issue) => ({
            at: `${issue.line}:${issue.column}`,
            message: issue.message,
            hint: issue.hint,
          }));
    };
    const refused = (label: string, value: string) =>
      `${label}: ${JSON.stringify(value)} must have no control characters (tabs, line breaks, escapes)`;
    for (const bad of ['e\u001b[31m\n```', 'a\u0000b', 'tab\there', 'a\rb', 'a\u007fb', 'a\u009bb']) {
      expect(found(T2I.replace('name: banner', `name: ${JSON.stringify(bad)}`))).toEqual([
        { at: '3:11', message: refused('images[0].name', bad), hint: expect.stringContaining('one line') },
      ]);
      const output = `assets/${bad}.webp`;
      expect(found(T2I.replace('output: assets/banner.webp', `output: ${JSON.stringify(output)}`))).toEqual([
        { at: '8:13', message: refused('images[0].output', output), hint: expect.stringContaining('one line') },
      ]);
      const input = `in/${bad}.png`;
      expect(
        found(
          `  - name: v\n    image: ${JSON.stringify(input)}\n    version: v2.0\n    width: 512\n    height: 512\n    output: v.webp\n`,
        ),
      ).toEqual([
        { at: '4:12', message: refused('images[0].image', input), hint: expect.stringContaining('one line') },
      ]);
      expect(
        found(
          `  - name: i\n    prompt: x\n    image: a.png\n    mask: { file: ${JSON.stringify(input)} }\n    output: i.webp\n`,
        ),
      ).toEqual([
        { at: '6:19', message: refused('images[0].mask.file', input), hint: expect.stringContaining('one line') },
      ]);
    }
    // Letters of any script, and separators that are not controls, are names and file names like others.
    expect(
      found(
        T2I.replace('name: banner', 'name: "봄 배너 \u2028 2"').replace(
          'assets/banner.webp',
          '"assets/봄 배너 (1).webp"',
        ),
      ),
    ).toEqual([]);
  });

  it('refuses repeated names and files, and references that do not resolve', () => {
    const text = file(`${T2I}${T2I}  - name: a
    image: { from: missing }
    version: v2.0
    width: 512
    height: 512
    output: a.webp
  - name: b
    image: { from: b }
    version: v2.0
    width: 512
    height: 512
    output: b.webp
  - name: many
    prompt: x
    version: v2.0
    width: 512
    height: 512
    samples: 2
    output: many.webp
  - name: c
    image: { from: many }
    version: v2.0
    width: 512
    height: 512
    output: c.webp
  - name: d
    image: { from: e }
    version: v2.0
    width: 512
    height: 512
    output: d.webp
  - name: e
    image: { from: d }
    version: v2.0
    width: 512
    height: 512
    output: e.webp
`);
    const found = problems(text);
    expect(found).toEqual(
      expect.arrayContaining([
        'images[1].name: "banner" is already the name of images[0] (line 3)',
        'images[1].output: assets/banner.webp is also written by images[0] (line 8)',
        'images[2].image.from: no image is named "missing"',
        'images[3].image.from: an image cannot be its own input',
        'images[5].image.from: "many" makes 2 files, so it is not clear which one to use',
        'images[7].image.from: the inputs form a cycle: d → e → d',
      ]),
    );
  });

  it('a ring of 20,000 images: one cycle, named by its ends, without overflowing the stack', () => {
    const count = 20_000;
    const images = Array.from({ length: count }, (_, index) => ({
      name: `i${index}`,
      image: { from: `i${(index + 1) % count}` },
      version: 'v2.0',
      output: `o/${index}.png`,
    }));
    const cycles = checkImageRules({ images }, () => 0).errors.filter((finding) => finding.message.includes('cycle'));
    expect(cycles).toEqual([
      {
        path: ['images', count - 1, 'image', 'from'],
        target: 'value',
        message: `the inputs form a cycle: i0 → i1 → i2 → i3 → … ${count - 6} more … → i${count - 2} → i${count - 1} → i0`,
        hint: 'an image cannot depend, even indirectly, on itself',
      },
    ]);
  });

  it('names at most ten images in the hint of an unknown one', () => {
    const images = Array.from({ length: 12 }, (_, index) => ({
      name: `i${index}`,
      prompt: 'a cat',
      version: 'v2.0',
      output: `o/${index}.png`,
    }));
    const unknown = checkImageRules(
      { images: [...images, { name: 'x', image: { from: 'nope' }, version: 'v2.0', output: 'o/x.png' }] },
      () => 0,
    ).errors.find((finding) => finding.message.startsWith('no image is named'));
    expect(unknown?.hint).toBe('the images are i0, i1, i2, i3, i4, i5, i6, i7, i8, i9 and 3 more');
  });

  it('warns about parameters that do nothing or are not recommended', () => {
    const result = validateConfig(file(withField('scale: 4')), 'audiences.yaml');
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(result.warnings.map((warning) => warning.message)).toEqual([
      'images[0].scale: does nothing without upscale: true',
    ]);
  });
});

describe('business in validate', () => {
  it('checks the check digit offline', () => {
    expect(problems(file('', 'business:\n  registrationNumber: 120-81-47522\n').replace('images:\n', ''))).toEqual([
      'business.registrationNumber: 120-81-47522 has a wrong check digit (the last digit would be 1)',
    ]);
  });

  it('reports the wrong form once, and accepts a valid number with expected fields', () => {
    expect(problems('adAccountId: 1\nbusiness:\n  registrationNumber: 1208147521\naudiences: []\n')).toHaveLength(1);
    const result = validateConfig(
      'adAccountId: 1\nbusiness:\n  registrationNumber: 120-81-47521\n  name: Demo Commerce Co., Ltd.\naudiences: []\n',
      'audiences.yaml',
    );
    expect(result.ok && result.value.business).toEqual({
      registrationNumber: '120-81-47521',
      expected: { name: 'Demo Commerce Co., Ltd.' },
    });
  });
});
