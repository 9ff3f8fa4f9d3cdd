import {
  dictionary,
  IMAGE_INPUT_FIELDS,
  IMAGE_OPERATIONS,
  projectPath,
  quoted,
  type ImageLock,
  type LockedImage,
} from '../model/index.js';
import { CONTROL_CHARACTER, projectPathProblem } from './image-rules.js';
import { isRecord } from './rules.js';

/**
 * images.lock.json, read and written. The tool writes it, but a person or a merge may edit
 * it: every entry is checked whole before any of it is used, since its paths say what apply
 * deletes and its seeds are sent to the service. A problem names the entry and the field,
 * never the file's text (it may not be a lock at all).
 */
export function parseImageLock(text: string): ImageLock | { problem: string } {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problem: `it is not JSON${jsonPosition(text, (error as Error).message)}` };
  }
  if (!isRecord(data) || data['lockVersion'] !== 1 || !isRecord(data['images'])) {
    return { problem: 'it is not an image lock of version 1 (an object with "lockVersion": 1 and "images" by name)' };
  }
  for (const [name, entry] of Object.entries(data['images'])) {
    const problem = entryProblem(entry);
    if (problem !== undefined) return { problem: `its entry ${quoted(name)}: ${problem}` };
  }
  return {
    lockVersion: 1,
    images: dictionary(
      Object.entries(data['images'] as Record<string, LockedImage>).map(([name, entry]) => [
        name,
        inOneSpelling(entry),
      ]),
    ),
  };
}

/**
 * An entry with its paths in the spelling the file's paths are read in (see projectPath): a lock written by hand may
 * say `./x.png`.
 */
function inOneSpelling(entry: LockedImage): LockedImage {
  const inputs: LockedImage['request']['inputs'] = {};
  for (const [field, input] of Object.entries(entry.request.inputs))
    inputs[field as keyof typeof inputs] = { ...input, file: projectPath(input.file) };
  return {
    ...entry,
    request: { ...entry.request, inputs },
    outputs: entry.outputs.map((output) => ({ ...output, path: projectPath(output.path) })),
  };
}

/** The lock as written: images by name, two-space JSON, so its diffs review well. */
export function renderImageLock(lock: ImageLock): string {
  const names = Object.keys(lock.images).sort();
  const images = dictionary(names.map((name) => [name, lock.images[name] as LockedImage] as const));
  return `${JSON.stringify({ lockVersion: 1, images }, null, 2)}\n`;
}

export function emptyImageLock(): ImageLock {
  return { lockVersion: 1, images: dictionary() };
}

const SHA256 = /^[0-9a-f]{64}$/;
const MAX_SEED = 4294967295;

/** What is wrong with one entry, field by field as the tool writes it; undefined when nothing is. */
function entryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'it is not an object';
  const request = entry['request'];
  if (!isRecord(request)) return 'request must be an object';
  if (!(IMAGE_OPERATIONS as readonly unknown[]).includes(request['operation']))
    return `request.operation must be one of ${IMAGE_OPERATIONS.join(', ')}`;
  if (!isRecord(request['params'])) return 'request.params must be an object';
  const inputs = request['inputs'];
  if (!isRecord(inputs)) return 'request.inputs must be an object';
  for (const [field, input] of Object.entries(inputs)) {
    const at = `request.inputs.${field}`;
    if (!(IMAGE_INPUT_FIELDS as readonly string[]).includes(field))
      return `${at} is not an input (${IMAGE_INPUT_FIELDS.join(', ')})`;
    if (!isRecord(input)) return `${at} must be an object`;
    const fromImage = 'from' in input;
    if (fromImage && typeof input['from'] !== 'string') return `${at}.from must be a string`;
    const problem = pathProblem(input['file'], `${at}.file`);
    if (problem !== undefined) return problem;
    if (!(typeof input['sha256'] === 'string' || (fromImage && input['sha256'] === null)))
      return `${at}.sha256 must be a string`;
  }
  if (typeof entry['requestHash'] !== 'string') return 'requestHash must be a string';
  if (typeof entry['modelVersion'] !== 'string') return 'modelVersion must be a string';
  const seeds = entry['seeds'];
  if (!Array.isArray(seeds)) return 'seeds must be an array';
  const seed = seeds.findIndex(
    (value) => !Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_SEED,
  );
  if (seed >= 0) return `seeds[${seed}] must be an integer from 0 to ${MAX_SEED}`;
  const outputs = entry['outputs'];
  if (!Array.isArray(outputs)) return 'outputs must be an array';
  for (const [index, output] of outputs.entries()) {
    const at = `outputs[${index}]`;
    if (!isRecord(output)) return `${at} must be an object with path and sha256`;
    const problem = pathProblem(output['path'], `${at}.path`);
    if (problem !== undefined) return problem;
    if (typeof output['sha256'] !== 'string' || !SHA256.test(output['sha256']))
      return `${at}.sha256 must be a SHA-256 (64 lowercase hexadecimal digits)`;
  }
  if (seeds.length !== outputs.length) return `it has ${seeds.length} seeds for ${outputs.length} outputs (one each)`;
  return undefined;
}

/** A path the lock records must be one the desired-state file could hold: in the project, on one line. */
function pathProblem(path: unknown, at: string): string | undefined {
  if (typeof path !== 'string' || path === '') return `${at} must be a path`;
  if (CONTROL_CHARACTER.test(path))
    return `${at} ${JSON.stringify(path)} has control characters (tabs, line breaks, escapes)`;
  const outside = projectPathProblem(path);
  return outside === undefined ? undefined : `${at} ${outside.message}`;
}

/**
 * Where JSON.parse stopped, as a line and column, when its message says (never the text itself, which it may quote).
 */
function jsonPosition(text: string, message: string): string {
  const match = /at position (\d+)/.exec(message);
  if (!match) return '';
  const before = text.replace(/^\uFEFF/, '').slice(0, Number(match[1]));
  const lines = before.split('\n');
  return ` (line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1})`;
}
