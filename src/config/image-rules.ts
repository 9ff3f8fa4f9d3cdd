import {
  formatOfPath,
  hasNonLatinLetters,
  IMAGE_INPUT_FIELDS,
  IMAGE_PARAM_TABLE,
  inferOperation,
  numberedOutputs,
  projectPath,
  SCHEDULERS,
  SIZE_BOUNDS,
  type ImageOperation,
} from '../model/index.js';
import type { Finding } from './issues.js';
import { toLabel, type Path } from './positions.js';
import { isRecord, type LineOf } from './rules.js';

const OPERATION_NAMES: Readonly<Record<ImageOperation, string>> = {
  t2i: 'text to image (t2i)',
  variations: 'variations',
  inpainting: 'inpainting',
};

/** What an image's name is for, said in the hints of the rules on it. */
const NAME_ROLE = 'the name is the identity of an image, shown in plans and kept in images.lock.json';

/**
 * The image-generation rules the schema cannot say alone: which parameters each operation
 * takes (the spec's R/O/- table), the bounds and schedulers of each version, one seed per
 * sample, English prompts, output and input paths that stay in the project folder, unique
 * names and files, and `from:` references that exist and form no cycle. Like the audience
 * rules, each check looks only at values of the shape it understands, so every problem
 * shows at once beside the schema's.
 */
export function checkImageRules(file: unknown, lineOf: LineOf): { errors: Finding[]; warnings: Finding[] } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  if (!isRecord(file) || !Array.isArray(file['images'])) return { errors, warnings };
  const images = (file['images'] as unknown[])
    .map((image, index) => ({ image, at: ['images', index] as Path }))
    .filter((entry): entry is { image: Record<string, unknown>; at: Path } => isRecord(entry.image));

  const names = new Map<string, { at: Path; samples: number }>();
  // Each file written, in one spelling (and lowercased, for the disks that ignore case), with the image that writes it
  // and as it spells it.
  const outputs = new Map<string, { at: Path; spelled: string }>();
  const caseless = new Map<string, { at: Path; spelled: string }>();
  for (const { image, at } of images) {
    const operation = inferOperation(image);
    errors.push(
      ...tableRules(image, at, operation),
      ...versionRules(image, at, operation),
      ...seedRules(image, at),
      ...promptRules(image, at),
    );
    warnings.push(...advice(image, at, operation));

    const name = image['name'];
    if (typeof name === 'string' && name !== '') {
      if (name.trim() === '')
        errors.push({
          path: [...at, 'name'],
          target: 'value',
          message: 'is only spaces',
          hint: `${NAME_ROLE}: give it a word`,
        });
      errors.push(
        ...controlRules(name, [...at, 'name'], `${NAME_ROLE}: write it on one line, without tabs or escapes`),
      );
      const first = names.get(name);
      if (first) {
        errors.push({
          path: [...at, 'name'],
          target: 'value',
          message: `${JSON.stringify(name)} is already the name of ${toLabel(first.at)} (line ${lineOf([...first.at, 'name'])})`,
          hint: 'the name is the identity of an image: make each unique',
        });
      } else {
        names.set(name, { at, samples: samplesOf(image) });
      }
    }

    const output = image['output'];
    if (typeof output === 'string' && output !== '') {
      const pathProblem = projectPathProblem(output);
      if (pathProblem) errors.push({ path: [...at, 'output'], target: 'value', ...pathProblem });
      errors.push(...controlRules(output, [...at, 'output'], FILE_NAME_HINT), ...formatRules(image, at, output));
      const spellings = numberedOutputs(output, samplesOf(image));
      for (const [index, path] of numberedOutputs(projectPath(output), samplesOf(image)).entries()) {
        const spelled = spellings[index] ?? path;
        const first = outputs.get(path);
        const other = first ?? caseless.get(path.toLowerCase());
        const where = other === undefined ? '' : `${toLabel(other.at)} (line ${lineOf([...other.at, 'output'])})`;
        if (first) {
          errors.push({
            path: [...at, 'output'],
            target: 'value',
            message:
              spelled === first.spelled
                ? `${path} is also written by ${where}`
                : `${spelled} names the same file as ${first.spelled}, which ${where} writes`,
            hint: 'give each image its own output file: two images writing one file would each overwrite the other, and every plan would generate them again',
          });
        } else {
          if (other) {
            warnings.push({
              path: [...at, 'output'],
              target: 'value',
              message: `${spelled} and ${other.spelled}, written by ${where}, differ only in case: on a disk that ignores case (macOS, Windows) they are one file`,
              hint: 'give each image an output file whose name differs in more than case',
            });
          }
          outputs.set(path, { at, spelled });
          if (!other) caseless.set(path.toLowerCase(), { at, spelled });
        }
      }
    }

    for (const field of IMAGE_INPUT_FIELDS) {
      const input = image[field];
      const path =
        typeof input === 'string'
          ? input
          : isRecord(input) && typeof input['file'] === 'string'
            ? input['file']
            : undefined;
      if (path === undefined || path === '') continue;
      const where: Path = [...at, field, ...(typeof input === 'string' ? [] : ['file'])];
      const pathProblem = projectPathProblem(path);
      if (pathProblem) errors.push({ path: where, target: 'value', ...pathProblem });
      errors.push(...controlRules(path, where, FILE_NAME_HINT));
    }
  }

  errors.push(...referenceRules(images, names));
  return { errors, warnings };
}

/** The spec's table: a parameter an operation does not take, or one it requires and is missing. */
function tableRules(image: Record<string, unknown>, at: Path, operation: ImageOperation): Finding[] {
  const findings: Finding[] = [];
  const explicit = typeof image['operation'] === 'string';
  for (const [field, byOperation] of Object.entries(IMAGE_PARAM_TABLE)) {
    const rule = byOperation[operation];
    if (rule === '-' && field in image) {
      const takers = (Object.keys(byOperation) as ImageOperation[])
        .filter((candidate) => byOperation[candidate] !== '-')
        .map((candidate) => OPERATION_NAMES[candidate]);
      findings.push({
        path: [...at, field],
        target: 'key',
        message: `${OPERATION_NAMES[operation]} does not take ${field}${explicit ? '' : ' (the operation follows from the inputs; write operation: to choose another)'}`,
        hint: `${field} is for ${takers.join(' and ')}`,
      });
    }
    if (rule === 'R' && !(field in image)) {
      findings.push({
        path: [...at, explicit ? 'operation' : 'name'],
        target: 'value',
        message: `${OPERATION_NAMES[operation]} needs ${field}`,
        hint: REQUIRED_HINTS[field],
      });
    }
  }
  return findings;
}

const REQUIRED_HINTS: Readonly<Record<string, string>> = {
  version: 'version: v2.1 (768 to 1280 pixels) or version: v2.0 (384 to 640 pixels)',
  prompt: 'describe the image in English, e.g. prompt: a spring picnic in a park',
  image: 'image: path/to/source.png, or image: {from: another-image}',
  mask: 'mask: path/to/mask.png, black where the image is redrawn',
  width: 'a multiple of 8: 768 to 1280 for v2.1, 384 to 640 for v2.0',
  height: 'a multiple of 8: 768 to 1280 for v2.1, 384 to 640 for v2.0',
};

/** Sizes and schedulers per version; inpainting only with v2.0. */
function versionRules(image: Record<string, unknown>, at: Path, operation: ImageOperation): Finding[] {
  const findings: Finding[] = [];
  const version = image['version'] ?? (operation === 'inpainting' ? 'v2.0' : undefined);
  if (version !== 'v2.1' && version !== 'v2.0') return findings;
  if (operation === 'inpainting' && version !== 'v2.0') {
    findings.push({
      path: [...at, 'version'],
      target: 'value',
      message: 'inpainting takes only version v2.0',
      hint: 'write version: v2.0, or leave version out (v2.0 is the default for inpainting)',
    });
  }
  const bounds = SIZE_BOUNDS[version];
  for (const field of ['width', 'height'] as const) {
    const size = image[field];
    if (typeof size !== 'number' || !Number.isInteger(size) || IMAGE_PARAM_TABLE[field][operation] === '-') continue;
    if (size < bounds.min || size > bounds.max) {
      findings.push({
        path: [...at, field],
        target: 'value',
        message: `${size} is outside ${bounds.min} to ${bounds.max}, the ${field}s of version ${version}`,
        hint:
          version === 'v2.1'
            ? 'v2.1 draws 768 to 1280 pixels (1024 recommended); v2.0 draws 384 to 640'
            : 'v2.0 draws 384 to 640 pixels (512 recommended); v2.1 draws 768 to 1280',
      });
    }
  }
  const scheduler = image['scheduler'];
  const allowed = SCHEDULERS[version];
  if (typeof scheduler === 'string' && IMAGE_PARAM_TABLE.scheduler[operation] !== '-' && !allowed.includes(scheduler)) {
    findings.push({
      path: [...at, 'scheduler'],
      target: 'value',
      message: `${scheduler} is not a scheduler of version ${version}`,
      hint: `version ${version} takes ${allowed.join(' or ')}`,
    });
  }
  return findings;
}

/** One seed per sample. */
function seedRules(image: Record<string, unknown>, at: Path): Finding[] {
  const seed = image['seed'];
  if (!Array.isArray(seed)) return [];
  const samples = samplesOf(image);
  if (seed.length === samples) return [];
  return [
    {
      path: [...at, 'seed'],
      target: 'value',
      message: `lists ${seed.length} seed${seed.length === 1 ? '' : 's'} for ${samples} sample${samples === 1 ? '' : 's'}`,
      hint: 'give one seed per sample, or leave seed out: the seeds used are then kept in images.lock.json',
    },
  ];
}

function promptRules(image: Record<string, unknown>, at: Path): Finding[] {
  const findings: Finding[] = [];
  for (const field of ['prompt', 'negative_prompt'] as const) {
    const text = image[field];
    if (typeof text !== 'string') continue;
    if (field === 'prompt' && text !== '' && text.trim() === '')
      findings.push({
        path: [...at, field],
        target: 'value',
        message: 'is only spaces',
        hint: 'describe the image in English',
      });
    if (hasNonLatinLetters(text)) {
      findings.push({
        path: [...at, field],
        target: 'value',
        message: 'must be English: it has letters of another script',
        hint: 'the image-generation service understands English prompts only: translate it',
      });
    }
  }
  return findings;
}

/**
 * The control characters the schema refuses in an audience name (C0, DEL and C1: tabs, line
 * breaks, escapes), refused in an image's name and file names too: printed, they would act
 * (an escape repaints the terminal, a line break forges a line of a plan or closes a Markdown
 * block); written, they would make a file with a line break in its name.
 */
// eslint-disable-next-line no-control-regex -- matching the control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

const FILE_NAME_HINT =
  'a file name with a line break, a tab or an escape cannot be typed or listed plainly: write the path on one line, without them';

function controlRules(text: string, path: Path, hint: string): Finding[] {
  if (!CONTROL_CHARACTER.test(text)) return [];
  return [
    {
      path,
      target: 'value',
      message: `${JSON.stringify(text)} must have no control characters (tabs, line breaks, escapes)`,
      hint,
    },
  ];
}

/** The output's extension and image_format name one format; one of them must be given. */
function formatRules(image: Record<string, unknown>, at: Path, output: string): Finding[] {
  const declared = image['image_format'];
  const fromPath = formatOfPath(output);
  if (typeof declared === 'string' && fromPath !== undefined && declared !== fromPath) {
    return [
      {
        path: [...at, 'output'],
        target: 'value',
        message: `the extension names ${fromPath}, but image_format is ${declared}`,
        hint: `name the file .${declared === 'jpeg' ? 'jpg' : declared}, or change image_format`,
      },
    ];
  }
  if (declared === undefined && fromPath === undefined) {
    return [
      {
        path: [...at, 'output'],
        target: 'value',
        message: 'has no image extension, so its format is unknown',
        hint: 'end the name in .webp, .png or .jpg, or give image_format',
      },
    ];
  }
  return [];
}

function advice(image: Record<string, unknown>, at: Path, operation: ImageOperation): Finding[] {
  const findings: Finding[] = [];
  if ('scale' in image && image['upscale'] !== true) {
    findings.push({
      path: [...at, 'scale'],
      target: 'key',
      message: 'does nothing without upscale: true',
      hint: 'add upscale: true to enlarge the image, or remove scale',
    });
  }
  if ('face_refiner' in image && image['version'] === 'v2.1' && operation !== 'inpainting') {
    findings.push({
      path: [...at, 'face_refiner'],
      target: 'key',
      message: `is recommended only with version v2.0 for ${OPERATION_NAMES[operation]}`,
      hint: 'use version: v2.0 with face_refiner, or remove it',
    });
  }
  return findings;
}

/** `from:` names a declared image with one file, not itself, and the references form no cycle. */
function referenceRules(
  images: Array<{ image: Record<string, unknown>; at: Path }>,
  names: Map<string, { at: Path; samples: number }>,
): Finding[] {
  const findings: Finding[] = [];
  const edges = new Map<string, Array<{ to: string; path: Path }>>();
  // Made once: each of 20,000 unknown names listing every image took minutes and gigabytes.
  const known =
    names.size > 0 ? `the images are ${listed([...names.keys()])}` : 'declare the source image under images:';
  for (const { image, at } of images) {
    const name = typeof image['name'] === 'string' ? image['name'] : undefined;
    for (const field of IMAGE_INPUT_FIELDS) {
      const input = image[field];
      if (!isRecord(input) || typeof input['from'] !== 'string') continue;
      const source = input['from'];
      const path: Path = [...at, field, 'from'];
      const target = names.get(source);
      if (!target) {
        findings.push({
          path,
          target: 'value',
          message: `no image is named ${JSON.stringify(source)}`,
          hint: known,
        });
      } else if (source === name) {
        findings.push({
          path,
          target: 'value',
          message: 'an image cannot be its own input',
          hint: 'name another image, or a file',
        });
      } else if (target.samples > 1) {
        findings.push({
          path,
          target: 'value',
          message: `${JSON.stringify(source)} makes ${target.samples} files, so it is not clear which one to use`,
          hint: 'use an image with one sample, or name one of its files as a path',
        });
      } else if (name !== undefined) {
        edges.set(name, [...(edges.get(name) ?? []), { to: source, path }]);
      }
    }
  }
  // A cycle is reported once, at the reference that closes it. The walk keeps its own stack
  // and one trail: recursion overflowed the stack on a chain of 20,000 images.
  const state = new Map<string, 'visiting' | 'done'>();
  for (const start of [...edges.keys()].sort()) {
    if (state.has(start)) continue;
    /** The images being visited, from `start`, and where each sits in the trail. */
    const trail: string[] = [];
    const position = new Map<string, number>();
    const frames: Array<{ name: string; next: number }> = [];
    const enter = (name: string): void => {
      state.set(name, 'visiting');
      position.set(name, trail.length);
      trail.push(name);
      frames.push({ name, next: 0 });
    };
    enter(start);
    for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
      const edge = edges.get(frame.name)?.[frame.next];
      if (edge === undefined) {
        state.set(frame.name, 'done');
        position.delete(frame.name);
        trail.pop();
        frames.pop();
        continue;
      }
      frame.next += 1;
      const seen = state.get(edge.to);
      if (seen === 'visiting') {
        const cycle = [...trail.slice(position.get(edge.to)), edge.to];
        findings.push({
          path: edge.path,
          target: 'value',
          message: `the inputs form a cycle: ${shownCycle(cycle)}`,
          hint: 'an image cannot depend, even indirectly, on itself',
        });
      } else if (seen === undefined) {
        enter(edge.to);
      }
    }
  }
  return findings;
}

/** Names in a hint: the first few and how many more, so that a hint stays a line. */
function listed(names: string[], shown = 10): string {
  return names.length <= shown
    ? names.join(', ')
    : `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

/** A long cycle by its ends: each closing reference of a long chain naming it whole made the messages quadratic. */
function shownCycle(cycle: string[]): string {
  if (cycle.length <= 8) return cycle.join(' → ');
  return [...cycle.slice(0, 4), `… ${cycle.length - 7} more …`, ...cycle.slice(-3)].join(' → ');
}

/**
 * Files the tool reads or writes stay in the project: a relative path without `..`. (Links
 * that lead out are found when planning, where the file system is read.)
 */
export function projectPathProblem(path: string): { message: string; hint: string } | undefined {
  if (/^([/\\]|[A-Za-z]:)/.test(path))
    return {
      message: `${JSON.stringify(path)} is an absolute path`,
      hint: 'write the path relative to this file, inside its folder',
    };
  if (path.split(/[/\\]/).includes('..'))
    return {
      message: `${JSON.stringify(path)} leads out of the project folder (..)`,
      hint: 'keep image files in the folder of this file or below it',
    };
  return undefined;
}

function samplesOf(image: Record<string, unknown>): number {
  const samples = image['samples'];
  return typeof samples === 'number' && Number.isInteger(samples) && samples >= 1 && samples <= 8 ? samples : 1;
}
