import {
  dictionary,
  IMAGE_INPUT_FIELDS,
  IMAGE_OPERATIONS,
  LOCK_FILE,
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
export function parseImageLock(text: string): ImageLock | { problem: string; hint?: string } {
  const json = text.replace(/^\uFEFF/, '');
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    return { problem: `it is not JSON${jsonPosition(json, (error as Error).message)}` };
  }
  if (!isRecord(data) || data['lockVersion'] !== 1 || !isRecord(data['images'])) {
    return { problem: 'it is not an image lock of version 1 (an object with "lockVersion": 1 and "images" by name)' };
  }
  const twice = keysWritten(json) === keysRead(data) ? undefined : duplicateKey(json);
  if (twice !== undefined) return twice;
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
  return match ? ` (${lineAndColumn(text, Number(match[1]))})` : '';
}

function lineAndColumn(text: string, offset: number): string {
  const lines = text.slice(0, offset).split('\n');
  return `line ${lines.length}, column ${(lines.at(-1)?.length ?? 0) + 1}`;
}

/**
 * The keys the text writes, by the quotes that end them: a quote that is not escaped, then a colon. Fewer keys read
 * than written means one is given twice, so a lock without one is not scanned again (the seam of a performance choice:
 * bench/NOTES.md).
 */
function keysWritten(text: string): number {
  return text.match(/(?<!\\)(?:\\\\)*"[ \t\r\n]*:/g)?.length ?? 0;
}

/** The keys of every object in `data`, counted without recursion: a lock may nest lists deeper than the stack goes. */
function keysRead(data: unknown): number {
  let count = 0;
  const pending = [data];
  while (pending.length > 0) {
    const value = pending.pop();
    if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (isRecord(value)) {
      for (const key in value) {
        count++;
        pending.push(value[key]);
      }
    }
  }
  return count;
}

/** A place in the lock: a key of an object, or an index in a list. */
interface Level {
  keys: Map<string, number> | undefined;
  at: string | number;
}

/**
 * The first key that an object of the lock gives twice, as a problem naming both places. JSON.parse keeps the last in
 * silence, and a merge that joined two entries of one name (or two fields of one entry) would pass for one. One pass
 * over `text`, which JSON.parse took already: only strings, brackets and commas matter.
 */
function duplicateKey(text: string): { problem: string; hint: string } | undefined {
  const levels: Level[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = stringEnd(text, i);
      const level = levels.at(-1);
      if (keyNext && level?.keys !== undefined) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const first = level.keys.get(key);
        if (first !== undefined) return twice(text, levels, key, i, first);
        level.keys.set(key, i);
        level.at = key;
        keyNext = false;
      }
      i = end;
    } else if (char === OPEN_OBJECT) {
      levels.push({ keys: new Map(), at: '' });
      keyNext = true;
    } else if (char === OPEN_LIST) {
      levels.push({ keys: undefined, at: 0 });
      keyNext = false;
    } else if (char === CLOSE_OBJECT || char === CLOSE_LIST) {
      levels.pop();
      keyNext = false;
    } else if (char === COMMA) {
      const level = levels.at(-1);
      if (level?.keys !== undefined) keyNext = true;
      else if (level !== undefined) level.at = (level.at as number) + 1;
    }
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const COMMA = 0x2c;

/** The offset of the quote that ends the string starting at `start`. */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** A key given twice, named as the lock's other problems are: the entry, then the field in it. */
function twice(
  text: string,
  levels: Level[],
  key: string,
  at: number,
  first: number,
): { problem: string; hint: string } {
  const path = [...levels.slice(0, -1).map((level) => level.at), key];
  const field = (steps: Array<string | number>): string =>
    steps.map((step, index) => (typeof step === 'number' ? `[${step}]` : index === 0 ? step : `.${step}`)).join('');
  const what =
    path[0] !== 'images' || path.length < 2
      ? `the key ${quoted(field(path))} is`
      : path.length === 2
        ? `its entry ${quoted(key)} is`
        : `its entry ${quoted(String(path[1]))}: ${field(path.slice(2))} is`;
  return {
    problem: `${what} given twice (${lineAndColumn(text, at)}, and first at ${lineAndColumn(text, first)})`,
    hint: `keep one of the two and delete the other (\`audiences apply --kind image\` then rewrites ${LOCK_FILE})`,
  };
}
