/**
 * The request rules of the image-generation API (spec: imagegen-api.md, "Request body parameters"), applied to a
 * parsed JSON body. Pure: image parameters stay Base64 text here; imagegen.ts decodes them.
 * Every broken rule is a 400 with its own detail code (DETAIL), reported one at a time in a fixed order:
 * body shape, unknown fields, fields the operation does not accept, missing fields, then each field in table order.
 */
import { invalid, shown } from './http-error.js';

export type Operation = 't2i' | 'variations' | 'inpainting';
export type ModelVersion = 'v2.1' | 'v2.0';
export type ImageFormat = 'webp' | 'jpeg' | 'png';
export type ReturnType = 'base64_string' | 'url';

export const DETAIL = {
  BODY_NOT_OBJECT: 7001,
  UNKNOWN_FIELD: 7002,
  NOT_ACCEPTED: 7003,
  MISSING: 7004,
  WRONG_TYPE: 7005,
  VERSION: 7006,
  PROMPT_EMPTY: 7007,
  PROMPT_TOO_LONG: 7008,
  PROMPT_NOT_ENGLISH: 7009,
  SIZE_NOT_MULTIPLE_OF_8: 7010,
  SIZE_OUT_OF_BOUNDS: 7011,
  SCALE: 7012,
  IMAGE_FORMAT: 7013,
  IMAGE_QUALITY: 7014,
  SAMPLES: 7015,
  RETURN_TYPE: 7016,
  PRIOR_NUM_INFERENCE_STEPS: 7017,
  PRIOR_GUIDANCE_SCALE: 7018,
  NUM_INFERENCE_STEPS: 7019,
  GUIDANCE_SCALE: 7020,
  SCHEDULER: 7021,
  SEED_COUNT: 7022,
  SEED_VALUE: 7023,
  FACE_REFINER_VALUE: 7024,
  IMAGE_BASE64: 7025,
  IMAGE_UNDECODABLE: 7026,
  IMAGE_FORMAT_UNSUPPORTED: 7027,
  IMAGE_TOO_LARGE: 7028,
  MASK_SIZE_MISMATCH: 7029,
} as const;

export interface FaceRefiner {
  bbox_size_threshold: number;
  bbox_filter_threshold: number;
  restoration_repeats: number;
  weight_sft: number;
}

/** A valid request with every default applied; parameters the operation does not take are null. */
export interface ImagegenRequest {
  operation: Operation;
  version: ModelVersion;
  prompt: string | null;
  negative_prompt: string | null;
  image: string | null;
  mask: string | null;
  reference_image: string | null;
  width: number | null;
  height: number | null;
  upscale: boolean;
  scale: 2 | 4;
  image_format: ImageFormat;
  image_quality: number;
  samples: number;
  return_type: ReturnType;
  prior_num_inference_steps: number | null;
  prior_guidance_scale: number | null;
  num_inference_steps: number;
  guidance_scale: number;
  scheduler: string | null;
  /** null: the service picks random seeds. */
  seed: number[] | null;
  nsfw_checker: boolean;
  face_refiner: FaceRefiner | null;
}

type Availability = 'R' | 'O' | '-';
type WireType = 'string' | 'integer' | 'number' | 'boolean' | 'integer[]' | 'object';

interface Param {
  type: WireType;
  /** T, V, I columns of the spec's table. */
  use: Readonly<Record<Operation, Availability>>;
  /**
   * null is read as "absent" only where the default is "nothing": seed (spec: "default null") and optional inputs
   * without a default.
   */
  nullable?: boolean;
}

const use = (t: Availability, v: Availability, i: Availability): Record<Operation, Availability> => ({
  t2i: t,
  variations: v,
  inpainting: i,
});

/** The spec's table, in its order (which is also the order in which fields are checked). */
const PARAMS: Readonly<Record<string, Param>> = {
  version: { type: 'string', use: use('R', 'R', 'O') },
  prompt: { type: 'string', use: use('R', '-', 'R') },
  negative_prompt: { type: 'string', use: use('O', '-', 'O'), nullable: true },
  image: { type: 'string', use: use('-', 'R', 'R') },
  mask: { type: 'string', use: use('-', '-', 'R') },
  reference_image: { type: 'string', use: use('-', '-', 'O'), nullable: true },
  width: { type: 'integer', use: use('R', 'R', '-') },
  height: { type: 'integer', use: use('R', 'R', '-') },
  upscale: { type: 'boolean', use: use('O', 'O', 'O') },
  scale: { type: 'integer', use: use('O', 'O', 'O') },
  image_format: { type: 'string', use: use('O', 'O', 'O') },
  image_quality: { type: 'integer', use: use('O', 'O', 'O') },
  samples: { type: 'integer', use: use('O', 'O', 'O') },
  return_type: { type: 'string', use: use('O', 'O', 'O') },
  prior_num_inference_steps: { type: 'integer', use: use('O', '-', 'O') },
  prior_guidance_scale: { type: 'number', use: use('O', '-', 'O') },
  num_inference_steps: { type: 'integer', use: use('O', 'O', 'O') },
  guidance_scale: { type: 'number', use: use('O', 'O', 'O') },
  scheduler: { type: 'string', use: use('O', 'O', '-') },
  seed: { type: 'integer[]', use: use('O', 'O', 'O'), nullable: true },
  nsfw_checker: { type: 'boolean', use: use('O', 'O', 'O') },
  face_refiner: { type: 'object', use: use('O', 'O', 'O'), nullable: true },
};

const FACE_REFINER: Readonly<Record<keyof FaceRefiner, { min: number; max: number; default: number }>> = {
  bbox_size_threshold: { min: 0, max: 1, default: 1 },
  bbox_filter_threshold: { min: 0, max: 1, default: 1 },
  restoration_repeats: { min: 1, max: 10, default: 2 },
  weight_sft: { min: 0, max: 1, default: 0.5 },
};

const SIZE_BOUNDS: Readonly<Record<ModelVersion, { min: number; max: number }>> = {
  'v2.1': { min: 768, max: 1280 },
  'v2.0': { min: 384, max: 640 },
};

const SCHEDULERS: Readonly<Record<ModelVersion, readonly string[]>> = {
  // The first entry is the version's default.
  'v2.1': ['decoder_ddpm_v_prediction'],
  'v2.0': ['decoder_ddim_v_prediction', 'decoder_ddpm_v_prediction'],
};

export const MAX_PROMPT_CHARACTERS = 2048;
export const MAX_SEED = 4_294_967_295;

/** Validates a parsed JSON body for one operation; throws EmulatorError (400) at the first broken rule. */
export function parseImagegenRequest(operation: Operation, body: unknown): ImagegenRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid(DETAIL.BODY_NOT_OBJECT, 'the request body must be a JSON object');
  }
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (!Object.hasOwn(PARAMS, name)) throw invalid(DETAIL.UNKNOWN_FIELD, `unknown field: ${name}`);
  }
  const given = (name: string): boolean => {
    const value = fields[name];
    return value !== undefined && !(value === null && PARAMS[name]?.nullable === true);
  };
  for (const [name, param] of Object.entries(PARAMS)) {
    if (param.use[operation] === '-' && Object.hasOwn(fields, name)) {
      throw invalid(DETAIL.NOT_ACCEPTED, `${name} is not accepted by ${operation}`);
    }
  }
  for (const [name, param] of Object.entries(PARAMS)) {
    if (param.use[operation] === 'R' && !given(name)) {
      throw invalid(DETAIL.MISSING, `${name} is required for ${operation}`);
    }
  }
  for (const [name, param] of Object.entries(PARAMS)) {
    if (given(name)) checkType(name, param.type, fields[name]);
  }
  // After the type checks, every given field has its table type; absent ones are undefined.
  const str = (name: string): string | undefined => (given(name) ? (fields[name] as string) : undefined);
  const num = (name: string): number | undefined => (given(name) ? (fields[name] as number) : undefined);
  const bool = (name: string): boolean | undefined => (given(name) ? (fields[name] as boolean) : undefined);

  const version = parseVersion(operation, str('version'));
  const prompt = str('prompt');
  if (prompt !== undefined) checkPrompt('prompt', prompt, false);
  const negativePrompt = str('negative_prompt');
  if (negativePrompt !== undefined) checkPrompt('negative_prompt', negativePrompt, true);
  const width = num('width');
  const height = num('height');
  if (width !== undefined) checkSize('width', width, version);
  if (height !== undefined) checkSize('height', height, version);
  const scale = num('scale') ?? 2;
  if (scale !== 2 && scale !== 4) throw invalid(DETAIL.SCALE, 'scale must be 2 or 4');
  const imageFormat = oneOf(
    str('image_format') ?? 'webp',
    ['webp', 'jpeg', 'png'] as const,
    'image_format',
    DETAIL.IMAGE_FORMAT,
  );
  const imageQuality = inRange(num('image_quality') ?? 70, 1, 100, 'image_quality', DETAIL.IMAGE_QUALITY);
  const samples = inRange(num('samples') ?? 1, 1, 8, 'samples', DETAIL.SAMPLES);
  const returnType = oneOf(
    str('return_type') ?? 'url',
    ['base64_string', 'url'] as const,
    'return_type',
    DETAIL.RETURN_TYPE,
  );
  const takesPrior = PARAMS.prior_num_inference_steps?.use[operation] !== '-';
  const priorSteps = takesPrior
    ? inRange(
        num('prior_num_inference_steps') ?? 25,
        10,
        100,
        'prior_num_inference_steps',
        DETAIL.PRIOR_NUM_INFERENCE_STEPS,
      )
    : null;
  const priorGuidance = takesPrior
    ? inRange(num('prior_guidance_scale') ?? 5.0, 1.0, 20.0, 'prior_guidance_scale', DETAIL.PRIOR_GUIDANCE_SCALE)
    : null;
  const steps = inRange(num('num_inference_steps') ?? 50, 10, 100, 'num_inference_steps', DETAIL.NUM_INFERENCE_STEPS);
  const guidance = inRange(num('guidance_scale') ?? 5.0, 1.0, 20.0, 'guidance_scale', DETAIL.GUIDANCE_SCALE);
  const scheduler = operation === 'inpainting' ? null : parseScheduler(version, str('scheduler'));
  const seed = given('seed') ? parseSeeds(fields.seed as number[], samples) : null;
  const faceRefiner = given('face_refiner') ? parseFaceRefiner(fields.face_refiner as Record<string, unknown>) : null;

  return {
    operation,
    version,
    prompt: prompt ?? null,
    negative_prompt: negativePrompt ?? null,
    image: str('image') ?? null,
    mask: str('mask') ?? null,
    reference_image: str('reference_image') ?? null,
    width: width ?? null,
    height: height ?? null,
    upscale: bool('upscale') ?? false,
    scale,
    image_format: imageFormat,
    image_quality: imageQuality,
    samples,
    return_type: returnType,
    prior_num_inference_steps: priorSteps,
    prior_guidance_scale: priorGuidance,
    num_inference_steps: steps,
    guidance_scale: guidance,
    scheduler,
    seed,
    nsfw_checker: bool('nsfw_checker') ?? false,
    face_refiner: faceRefiner,
  };
}

const TYPE_NAMES: Readonly<Record<WireType, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  'integer[]': 'an array of integers',
  object: 'an object',
};

function hasType(type: WireType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer[]':
      return Array.isArray(value) && value.every((item) => Number.isInteger(item));
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

function checkType(name: string, type: WireType, value: unknown): void {
  if (!hasType(type, value)) throw invalid(DETAIL.WRONG_TYPE, `${name} must be ${TYPE_NAMES[type]}`);
}

function parseVersion(operation: Operation, value: string | undefined): ModelVersion {
  if (operation === 'inpainting') {
    if (value === undefined || value === 'v2.0') return 'v2.0';
    throw invalid(DETAIL.VERSION, `inpainting accepts only version v2.0, not ${shown(value)}`);
  }
  if (value === 'v2.1' || value === 'v2.0') return value;
  throw invalid(DETAIL.VERSION, `version must be v2.1 or v2.0, not ${shown(value)}`);
}

/** A letter of any script other than Latin (Hangul, CJK, Cyrillic, Greek, Arabic, …) marks a non-English prompt. */
const NON_LATIN_LETTER = /(?!\p{Script=Latin})\p{Letter}/u;

function checkPrompt(name: string, value: string, mayBeEmpty: boolean): void {
  if (!mayBeEmpty && value.trim() === '') throw invalid(DETAIL.PROMPT_EMPTY, `${name} must not be empty`);
  // Characters are Unicode code points, as the service counts them (not UTF-16 units).
  const length = [...value].length;
  if (length > MAX_PROMPT_CHARACTERS) {
    throw invalid(
      DETAIL.PROMPT_TOO_LONG,
      `${name} has ${length} characters; at most ${MAX_PROMPT_CHARACTERS} are allowed`,
    );
  }
  const foreign = NON_LATIN_LETTER.exec(value);
  if (foreign) {
    throw invalid(
      DETAIL.PROMPT_NOT_ENGLISH,
      `${name} must be English; it contains the non-Latin letter ${shown(foreign[0])}`,
    );
  }
}

function checkSize(name: string, value: number, version: ModelVersion): void {
  const { min, max } = SIZE_BOUNDS[version];
  if (value % 8 !== 0) throw invalid(DETAIL.SIZE_NOT_MULTIPLE_OF_8, `${name} must be a multiple of 8, not ${value}`);
  if (value < min || value > max) {
    throw invalid(DETAIL.SIZE_OUT_OF_BOUNDS, `${name} must be between ${min} and ${max} for ${version}, not ${value}`);
  }
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string, code: number): T {
  const found = allowed.find((item) => item === value);
  if (found === undefined) throw invalid(code, `${name} must be one of ${allowed.join(', ')}, not ${shown(value)}`);
  return found;
}

function inRange(value: number, min: number, max: number, name: string, code: number): number {
  if (value < min || value > max) throw invalid(code, `${name} must be between ${min} and ${max}, not ${value}`);
  return value;
}

function parseScheduler(version: ModelVersion, value: string | undefined): string {
  const allowed = SCHEDULERS[version];
  if (value === undefined) return allowed[0] ?? '';
  if (!allowed.includes(value)) {
    throw invalid(DETAIL.SCHEDULER, `scheduler for ${version} must be ${allowed.join(' or ')}, not ${shown(value)}`);
  }
  return value;
}

function parseSeeds(seeds: number[], samples: number): number[] {
  if (seeds.length !== samples) {
    throw invalid(DETAIL.SEED_COUNT, `seed has ${seeds.length} values but samples is ${samples}: one seed per image`);
  }
  const bad = seeds.find((seed) => seed < 0 || seed > MAX_SEED);
  if (bad !== undefined) throw invalid(DETAIL.SEED_VALUE, `each seed must be between 0 and ${MAX_SEED}, not ${bad}`);
  return seeds;
}

function parseFaceRefiner(value: Record<string, unknown>): FaceRefiner {
  const result = {} as FaceRefiner;
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(FACE_REFINER, name)) throw invalid(DETAIL.UNKNOWN_FIELD, `unknown field: face_refiner.${name}`);
  }
  for (const [name, bounds] of Object.entries(FACE_REFINER) as [
    keyof FaceRefiner,
    (typeof FACE_REFINER)[keyof FaceRefiner],
  ][]) {
    const field = value[name];
    if (field === undefined) {
      result[name] = bounds.default;
      continue;
    }
    checkType(`face_refiner.${name}`, 'number', field);
    const number = field as number;
    if (number < bounds.min || number > bounds.max) {
      throw invalid(
        DETAIL.FACE_REFINER_VALUE,
        `face_refiner.${name} must be between ${bounds.min} and ${bounds.max}, not ${number}`,
      );
    }
    result[name] = number;
  }
  return result;
}
