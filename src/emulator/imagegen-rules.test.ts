import { describe, expect, it } from 'vitest';
import { EmulatorError } from './http-error.js';
import { DETAIL, parseImagegenRequest } from './imagegen-rules.js';
import type { Operation } from './imagegen-rules.js';

const BASE: Record<Operation, Record<string, unknown>> = {
  t2i: { version: 'v2.0', prompt: 'a cat on a sofa', width: 384, height: 384 },
  variations: { version: 'v2.0', image: 'AAAA', width: 384, height: 384 },
  inpainting: { prompt: 'a red hat', image: 'AAAA', mask: 'AAAA' },
};

/** The base body of the operation with `patch` applied; an `undefined` value removes the field. */
function body(operation: Operation, patch: Record<string, unknown> = {}): Record<string, unknown> {
  const result: Record<string, unknown> = { ...BASE[operation], ...patch };
  for (const [name, value] of Object.entries(patch)) if (value === undefined) delete result[name];
  return result;
}

function rejection(operation: Operation, value: unknown): { status: number; detailCode: number | undefined } {
  try {
    parseImagegenRequest(operation, value);
  } catch (error) {
    if (!(error instanceof EmulatorError)) throw error;
    expect(error.body.extras?.detailMsg).toEqual(expect.any(String));
    return { status: error.status, detailCode: error.body.extras?.detailCode };
  }
  throw new Error(`accepted: ${JSON.stringify(value)}`);
}

type Case = [string, Operation, Record<string, unknown>, number];

const rejected: Case[] = [
  ['unknown field', 't2i', { colour: 'red' }, DETAIL.UNKNOWN_FIELD],
  ['unknown field even when null', 'variations', { style: null }, DETAIL.UNKNOWN_FIELD],
  ['image on t2i', 't2i', { image: 'AAAA' }, DETAIL.NOT_ACCEPTED],
  ['mask on t2i', 't2i', { mask: 'AAAA' }, DETAIL.NOT_ACCEPTED],
  ['reference_image on variations', 'variations', { reference_image: 'AAAA' }, DETAIL.NOT_ACCEPTED],
  ['prompt on variations', 'variations', { prompt: 'a dog' }, DETAIL.NOT_ACCEPTED],
  ['negative_prompt on variations', 'variations', { negative_prompt: 'blur' }, DETAIL.NOT_ACCEPTED],
  ['prior steps on variations', 'variations', { prior_num_inference_steps: 25 }, DETAIL.NOT_ACCEPTED],
  ['prior guidance on variations', 'variations', { prior_guidance_scale: 5 }, DETAIL.NOT_ACCEPTED],
  ['width on inpainting', 'inpainting', { width: 384 }, DETAIL.NOT_ACCEPTED],
  ['height on inpainting', 'inpainting', { height: 384 }, DETAIL.NOT_ACCEPTED],
  ['scheduler on inpainting', 'inpainting', { scheduler: 'decoder_ddim_v_prediction' }, DETAIL.NOT_ACCEPTED],
  ['t2i without version', 't2i', { version: undefined }, DETAIL.MISSING],
  ['t2i without prompt', 't2i', { prompt: undefined }, DETAIL.MISSING],
  ['t2i without width', 't2i', { width: undefined }, DETAIL.MISSING],
  ['t2i without height', 't2i', { height: undefined }, DETAIL.MISSING],
  ['variations without version', 'variations', { version: undefined }, DETAIL.MISSING],
  ['variations without image', 'variations', { image: undefined }, DETAIL.MISSING],
  ['variations without width', 'variations', { width: undefined }, DETAIL.MISSING],
  ['inpainting without prompt', 'inpainting', { prompt: undefined }, DETAIL.MISSING],
  ['inpainting without image', 'inpainting', { image: undefined }, DETAIL.MISSING],
  ['inpainting without mask', 'inpainting', { mask: undefined }, DETAIL.MISSING],
  ['width as a string', 't2i', { width: '384' }, DETAIL.WRONG_TYPE],
  ['width as a fraction', 't2i', { width: 384.5 }, DETAIL.WRONG_TYPE],
  ['version as a number', 't2i', { version: 2.1 }, DETAIL.WRONG_TYPE],
  ['prompt as a number', 't2i', { prompt: 42 }, DETAIL.WRONG_TYPE],
  ['required prompt as null', 't2i', { prompt: null }, DETAIL.WRONG_TYPE],
  ['image as a number', 'variations', { image: 1 }, DETAIL.WRONG_TYPE],
  ['upscale as a string', 't2i', { upscale: 'true' }, DETAIL.WRONG_TYPE],
  ['nsfw_checker as a number', 't2i', { nsfw_checker: 1 }, DETAIL.WRONG_TYPE],
  ['samples as null', 't2i', { samples: null }, DETAIL.WRONG_TYPE],
  ['scale as a string', 't2i', { scale: '2' }, DETAIL.WRONG_TYPE],
  ['image_quality as a fraction', 't2i', { image_quality: 70.5 }, DETAIL.WRONG_TYPE],
  ['guidance_scale as a string', 't2i', { guidance_scale: '5.0' }, DETAIL.WRONG_TYPE],
  ['prior_guidance_scale as a boolean', 'inpainting', { prior_guidance_scale: true }, DETAIL.WRONG_TYPE],
  ['seed as a number', 't2i', { seed: 42 }, DETAIL.WRONG_TYPE],
  ['seed with a fraction', 't2i', { seed: [1.5] }, DETAIL.WRONG_TYPE],
  ['seed with a string', 't2i', { seed: ['1'] }, DETAIL.WRONG_TYPE],
  ['face_refiner as an array', 't2i', { face_refiner: [] }, DETAIL.WRONG_TYPE],
  ['face_refiner field as a string', 't2i', { face_refiner: { weight_sft: '0.5' } }, DETAIL.WRONG_TYPE],
  ['unknown version', 't2i', { version: 'v2.2' }, DETAIL.VERSION],
  ['version in another case', 'variations', { version: 'V2.1' }, DETAIL.VERSION],
  ['inpainting with v2.1', 'inpainting', { version: 'v2.1' }, DETAIL.VERSION],
  ['empty prompt', 't2i', { prompt: '' }, DETAIL.PROMPT_EMPTY],
  ['blank prompt', 'inpainting', { prompt: '   ' }, DETAIL.PROMPT_EMPTY],
  ['prompt of 2049 characters', 't2i', { prompt: 'a'.repeat(2049) }, DETAIL.PROMPT_TOO_LONG],
  ['negative_prompt of 2049 characters', 't2i', { negative_prompt: 'b'.repeat(2049) }, DETAIL.PROMPT_TOO_LONG],
  ['Hangul prompt', 't2i', { prompt: '고양이 그림' }, DETAIL.PROMPT_NOT_ENGLISH],
  ['CJK inside an English prompt', 't2i', { prompt: 'a cat 猫' }, DETAIL.PROMPT_NOT_ENGLISH],
  ['Cyrillic prompt', 'inpainting', { prompt: 'кот' }, DETAIL.PROMPT_NOT_ENGLISH],
  ['Hangul negative_prompt', 't2i', { negative_prompt: '흐림' }, DETAIL.PROMPT_NOT_ENGLISH],
  ['width not a multiple of 8', 't2i', { width: 388 }, DETAIL.SIZE_NOT_MULTIPLE_OF_8],
  ['height not a multiple of 8', 'variations', { height: 401 }, DETAIL.SIZE_NOT_MULTIPLE_OF_8],
  ['v2.0 width below 384', 't2i', { width: 376 }, DETAIL.SIZE_OUT_OF_BOUNDS],
  ['v2.0 height above 640', 't2i', { height: 648 }, DETAIL.SIZE_OUT_OF_BOUNDS],
  ['v2.0 with a v2.1 size', 't2i', { width: 1024, height: 1024 }, DETAIL.SIZE_OUT_OF_BOUNDS],
  ['v2.1 width below 768', 't2i', { version: 'v2.1', width: 760, height: 1024 }, DETAIL.SIZE_OUT_OF_BOUNDS],
  ['v2.1 height above 1280', 'variations', { version: 'v2.1', width: 1024, height: 1288 }, DETAIL.SIZE_OUT_OF_BOUNDS],
  ['scale 3', 't2i', { scale: 3 }, DETAIL.SCALE],
  ['scale 1', 'inpainting', { upscale: true, scale: 1 }, DETAIL.SCALE],
  ['image_format jpg', 't2i', { image_format: 'jpg' }, DETAIL.IMAGE_FORMAT],
  ['image_format gif', 'variations', { image_format: 'gif' }, DETAIL.IMAGE_FORMAT],
  ['image_quality 0', 't2i', { image_quality: 0 }, DETAIL.IMAGE_QUALITY],
  ['image_quality 101', 't2i', { image_quality: 101 }, DETAIL.IMAGE_QUALITY],
  ['samples 0', 't2i', { samples: 0 }, DETAIL.SAMPLES],
  ['samples 9', 'inpainting', { samples: 9 }, DETAIL.SAMPLES],
  ['return_type base64', 't2i', { return_type: 'base64' }, DETAIL.RETURN_TYPE],
  ['prior steps 9', 't2i', { prior_num_inference_steps: 9 }, DETAIL.PRIOR_NUM_INFERENCE_STEPS],
  ['prior steps 101', 'inpainting', { prior_num_inference_steps: 101 }, DETAIL.PRIOR_NUM_INFERENCE_STEPS],
  ['prior guidance 0.9', 't2i', { prior_guidance_scale: 0.9 }, DETAIL.PRIOR_GUIDANCE_SCALE],
  ['prior guidance 20.1', 't2i', { prior_guidance_scale: 20.1 }, DETAIL.PRIOR_GUIDANCE_SCALE],
  ['decoder steps 9', 'variations', { num_inference_steps: 9 }, DETAIL.NUM_INFERENCE_STEPS],
  ['decoder steps 101', 't2i', { num_inference_steps: 101 }, DETAIL.NUM_INFERENCE_STEPS],
  ['decoder guidance 0.5', 'variations', { guidance_scale: 0.5 }, DETAIL.GUIDANCE_SCALE],
  ['decoder guidance 21', 't2i', { guidance_scale: 21 }, DETAIL.GUIDANCE_SCALE],
  [
    'v2.1 with the ddim scheduler',
    't2i',
    { version: 'v2.1', width: 1024, height: 1024, scheduler: 'decoder_ddim_v_prediction' },
    DETAIL.SCHEDULER,
  ],
  ['v2.0 with an unknown scheduler', 'variations', { scheduler: 'euler' }, DETAIL.SCHEDULER],
  ['fewer seeds than samples', 't2i', { samples: 2, seed: [1] }, DETAIL.SEED_COUNT],
  ['more seeds than samples', 'variations', { seed: [1, 2] }, DETAIL.SEED_COUNT],
  ['an empty seed list', 't2i', { seed: [] }, DETAIL.SEED_COUNT],
  ['a negative seed', 't2i', { seed: [-1] }, DETAIL.SEED_VALUE],
  ['a seed above 2^32 - 1', 'inpainting', { samples: 2, seed: [0, 4_294_967_296] }, DETAIL.SEED_VALUE],
  ['unknown face_refiner field', 't2i', { face_refiner: { strength: 1 } }, DETAIL.UNKNOWN_FIELD],
  ['weight_sft above 1', 't2i', { face_refiner: { weight_sft: 1.5 } }, DETAIL.FACE_REFINER_VALUE],
  [
    'bbox_size_threshold below 0',
    'variations',
    { face_refiner: { bbox_size_threshold: -0.1 } },
    DETAIL.FACE_REFINER_VALUE,
  ],
  [
    'bbox_filter_threshold above 1',
    'inpainting',
    { face_refiner: { bbox_filter_threshold: 2 } },
    DETAIL.FACE_REFINER_VALUE,
  ],
  ['restoration_repeats below 1', 't2i', { face_refiner: { restoration_repeats: 0.5 } }, DETAIL.FACE_REFINER_VALUE],
  ['restoration_repeats above 10', 't2i', { face_refiner: { restoration_repeats: 11 } }, DETAIL.FACE_REFINER_VALUE],
];

describe('parseImagegenRequest rejects', () => {
  it.each(rejected)('%s', (_name, operation, patch, detailCode) => {
    expect(rejection(operation, body(operation, patch))).toEqual({ status: 400, detailCode });
  });

  it.each([null, [], 'prompt', 42])('a body that is not an object: %j', (value) => {
    expect(rejection('t2i', value)).toEqual({ status: 400, detailCode: DETAIL.BODY_NOT_OBJECT });
  });

  it('checks unknown fields before anything else', () => {
    expect(rejection('t2i', { colour: 'red' })).toEqual({ status: 400, detailCode: DETAIL.UNKNOWN_FIELD });
  });

  it('uses one detail code per rule', () => {
    const codes = Object.values(DETAIL);
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('parseImagegenRequest accepts', () => {
  it('a minimal t2i body and applies the documented defaults', () => {
    expect(parseImagegenRequest('t2i', body('t2i'))).toEqual({
      operation: 't2i',
      version: 'v2.0',
      prompt: 'a cat on a sofa',
      negative_prompt: null,
      image: null,
      mask: null,
      reference_image: null,
      width: 384,
      height: 384,
      upscale: false,
      scale: 2,
      image_format: 'webp',
      image_quality: 70,
      samples: 1,
      return_type: 'url',
      prior_num_inference_steps: 25,
      prior_guidance_scale: 5,
      num_inference_steps: 50,
      guidance_scale: 5,
      scheduler: 'decoder_ddim_v_prediction',
      seed: null,
      nsfw_checker: false,
      face_refiner: null,
    });
  });

  it('the v2.1 default scheduler and the v2.1 bounds', () => {
    const request = parseImagegenRequest('t2i', body('t2i', { version: 'v2.1', width: 768, height: 1280 }));
    expect(request.scheduler).toBe('decoder_ddpm_v_prediction');
    expect([request.width, request.height]).toEqual([768, 1280]);
  });

  it('both v2.0 schedulers and the v2.0 bounds', () => {
    for (const scheduler of ['decoder_ddim_v_prediction', 'decoder_ddpm_v_prediction']) {
      expect(
        parseImagegenRequest('variations', body('variations', { scheduler, width: 640, height: 384 })).scheduler,
      ).toBe(scheduler);
    }
  });

  it('inpainting: version v2.0 by default or explicit, prior defaults, no scheduler', () => {
    for (const patch of [{}, { version: 'v2.0' }]) {
      const request = parseImagegenRequest('inpainting', body('inpainting', patch));
      expect(request).toMatchObject({
        version: 'v2.0',
        scheduler: null,
        prior_num_inference_steps: 25,
        prior_guidance_scale: 5,
      });
      expect([request.width, request.height]).toEqual([null, null]);
    }
  });

  it('variations: no prompt and no prior parameters', () => {
    expect(parseImagegenRequest('variations', body('variations'))).toMatchObject({
      prompt: null,
      prior_num_inference_steps: null,
      prior_guidance_scale: null,
    });
  });

  it('every optional parameter at its bounds', () => {
    const request = parseImagegenRequest(
      't2i',
      body('t2i', {
        negative_prompt: 'blurry, café-style text',
        upscale: true,
        scale: 4,
        image_format: 'png',
        image_quality: 1,
        samples: 8,
        return_type: 'base64_string',
        prior_num_inference_steps: 100,
        prior_guidance_scale: 1,
        num_inference_steps: 10,
        guidance_scale: 20,
        seed: [0, 1, 2, 3, 4, 5, 6, 4_294_967_295],
        nsfw_checker: true,
        face_refiner: { bbox_size_threshold: 0, restoration_repeats: 10 },
      }),
    );
    expect(request).toMatchObject({
      upscale: true,
      scale: 4,
      image_format: 'png',
      image_quality: 1,
      samples: 8,
      guidance_scale: 20,
    });
    expect(request.seed).toEqual([0, 1, 2, 3, 4, 5, 6, 4_294_967_295]);
    expect(request.face_refiner).toEqual({
      bbox_size_threshold: 0,
      bbox_filter_threshold: 1,
      restoration_repeats: 10,
      weight_sft: 0.5,
    });
  });

  it('null where the default is "nothing": seed, negative_prompt, reference_image, face_refiner', () => {
    const request = parseImagegenRequest(
      'inpainting',
      body('inpainting', { seed: null, negative_prompt: null, reference_image: null, face_refiner: null }),
    );
    expect(request).toMatchObject({ seed: null, negative_prompt: null, reference_image: null, face_refiner: null });
  });

  it('prompts of exactly 2048 characters, counted as code points', () => {
    expect(parseImagegenRequest('t2i', body('t2i', { prompt: 'a'.repeat(2048) })).prompt).toHaveLength(2048);
    // 2048 emoji are 4096 UTF-16 units but 2048 characters.
    expect(() => parseImagegenRequest('t2i', body('t2i', { prompt: '🐱'.repeat(2048) }))).not.toThrow();
  });

  it('English with digits, punctuation and accented Latin letters', () => {
    expect(() =>
      parseImagegenRequest('t2i', body('t2i', { prompt: 'Crème brûlée, 4K — "naïve" style!' })),
    ).not.toThrow();
  });
});
