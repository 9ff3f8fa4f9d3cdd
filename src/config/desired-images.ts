import {
  EXPECTED_BUSINESS_FIELDS,
  formatOfPath,
  IMAGE_INPUT_FIELDS,
  IMAGE_PARAM_FIELDS,
  inferOperation,
  numberedOutputs,
  projectPath,
  type DesiredBusiness,
  type DesiredImage,
  type ImageFormat,
  type ImageInput,
  type ImageParams,
} from '../model/index.js';
import type { Business, Image, ImageInput as ImageInputDeclaration } from './generated/audiences.js';

/** The business of a valid file: the number, and the fields it expects the lookup to find. */
export function toDesiredBusiness(business: Business): DesiredBusiness {
  const expected: DesiredBusiness['expected'] = {};
  for (const field of EXPECTED_BUSINESS_FIELDS) {
    const value = business[field];
    if (value !== undefined) expected[field] = value;
  }
  return { registrationNumber: business.registrationNumber, expected };
}

/**
 * The images of a valid file, shorthands expanded so plans show what is sent: the operation
 * (from the inputs when not written), image_format (from the output's extension), samples
 * (1) and, for inpainting, version v2.0 (its only version). Parameters keep the spec's order;
 * paths are in one spelling (`./x.png` is `x.png`).
 */
export function toDesiredImage(image: Image): DesiredImage {
  const operation = inferOperation(image);
  const declared: Record<string, unknown> = { ...image };
  declared['image_format'] = image.image_format ?? (formatOfPath(image.output) as ImageFormat);
  declared['samples'] = image.samples ?? 1;
  if (operation === 'inpainting') declared['version'] = image.version ?? 'v2.0';
  const params: Record<string, unknown> = {};
  for (const field of IMAGE_PARAM_FIELDS) if (declared[field] !== undefined) params[field] = declared[field];

  const inputs: DesiredImage['inputs'] = {};
  for (const field of IMAGE_INPUT_FIELDS) {
    const input = image[field];
    if (input !== undefined) inputs[field] = toInput(input);
  }
  return {
    key: image.name,
    operation,
    params: params as unknown as ImageParams,
    inputs,
    outputs: numberedOutputs(projectPath(image.output), image.samples ?? 1),
  };
}

/** Paths in one spelling (see projectPath): the plan, the lock and the files read compare them as text. */
function toInput(input: ImageInputDeclaration): ImageInput {
  if (typeof input === 'string') return { file: projectPath(input) };
  return 'from' in input ? { from: input.from } : { file: projectPath(input.file) };
}
