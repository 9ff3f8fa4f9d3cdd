import {
  IMAGE_INPUT_FIELDS,
  IMAGE_PARAM_FIELDS,
  quoted,
  type ImageRequest,
  type JsonValue,
  type RecordedInput,
} from '../../model/index.js';
import type { ImageGenerate, ImageGenerateReason, ImageMove, ImageRemove } from '../../plan/index.js';
import type { Block, Line } from '../block.js';
import type { KindRenderer } from '../kind.js';

const REASONS: Readonly<Record<ImageGenerateReason, string>> = {
  new: 'new',
  'request-changed': 'the request changed',
  'input-regenerated': 'an input image is generated first',
  'output-missing': 'a file is missing; the locked seeds bring it back identical',
  'output-altered': 'a file was altered; the locked seeds bring it back identical',
};

/** Images: counted only when there are some; a removal or a move lists each file it deletes. */
export const imageRenderer: KindRenderer<'image'> = {
  actions: {
    generate: { summary: 'to generate', always: false },
    move: { summary: 'to move', always: false },
    remove: { summary: 'to remove', always: false, destroys: 'removes' },
  },
  noun: 'image',
  block: (change) => imageBlock(change),
  describe: (result, name) => `${result.action} image ${name}`,
  deletes: (change) => (change.action === 'generate' ? [] : change.deletes),
};

/**
 * An image change as display rows: the request (all of it when new, what changed otherwise),
 * the seeds and the files; for a move, each file's new path, and what becomes of the old one.
 */
export function imageBlock(change: ImageGenerate | ImageMove | ImageRemove): Omit<Block, 'fields' | 'marks'> {
  if (change.action === 'move') {
    const copied = new Set(change.copies.map((copy) => copy.to));
    const lines: Line[] = change.after.outputs.flatMap((path, index): Line[] => {
      const old = change.before.outputs[index]?.path;
      if (old === undefined || old === path) return [];
      return [
        {
          kind: 'field',
          label: 'file',
          text: `${old} → ${path} (${copied.has(path) ? 'copied; nothing is generated' : 'already there'})`,
        },
      ];
    });
    const kept = change.before.outputs
      .map((output) => output.path)
      .filter((path) => !change.after.outputs.includes(path) && !change.deletes.includes(path));
    if (change.deletes.length > 0)
      lines.push({ kind: 'field', label: 'files deleted', text: change.deletes.join(', ') });
    if (kept.length > 0) lines.push({ kind: 'field', label: 'old files kept', text: kept.join(', ') });
    return { symbol: '~', title: `move image ${quoted(change.name)}`, lines };
  }
  if (change.action === 'remove') {
    return {
      symbol: '-',
      title: `remove image ${quoted(change.name)}`,
      lines: [
        {
          kind: 'field',
          label: 'files deleted',
          text: change.deletes.length === 0 ? '(none)' : change.deletes.join(', '),
        },
      ],
    };
  }
  const { request, seeds, outputs } = change.after;
  const lines: Line[] = [{ kind: 'field', label: 'reason', text: REASONS[change.display.reason] }];
  if (change.display.reason === 'new') {
    lines.push({ kind: 'field', label: 'operation', text: request.operation });
    const params = request.params as unknown as Record<string, JsonValue | undefined>;
    for (const field of IMAGE_PARAM_FIELDS) {
      const value = params[field];
      if (value !== undefined && field !== 'seed')
        lines.push({ kind: 'field', label: field, text: typeof value === 'string' ? value : JSON.stringify(value) });
    }
    for (const field of IMAGE_INPUT_FIELDS) {
      const input = request.inputs[field];
      if (input) lines.push({ kind: 'field', label: field, text: inputText(input) });
    }
  }
  for (const field of change.display.fields) {
    lines.push({ kind: 'field', label: field.field, text: `${valueText(field.before)} → ${valueText(field.after)}` });
  }
  lines.push({ kind: 'field', label: 'size', text: sizeText(request) });
  lines.push({
    kind: 'field',
    label: 'seeds',
    text: seeds === null ? 'chosen by the service, then locked' : seeds.join(', '),
  });
  lines.push({ kind: 'field', label: outputs.length === 1 ? 'file' : 'files', text: outputs.join(', ') });
  return { symbol: change.display.reason === 'new' ? '+' : '~', title: `generate image ${quoted(change.name)}`, lines };
}

/** The side the service caps an enlarged image at (the image service's spec, `scale`). */
const MAX_ENLARGED_SIDE = 2048;

/**
 * The size of the files a request makes: its width and height (inpainting keeps the input image's), enlarged by
 * `scale` when `upscale` is on.
 */
export function sizeText(request: ImageRequest): string {
  const { width, height, upscale, scale = 2 } = request.params;
  const asked =
    request.operation === 'inpainting' || width === undefined || height === undefined
      ? 'that of the input image'
      : `${width}×${height}`;
  if (upscale !== true) return asked;
  const capped =
    request.operation === 'inpainting' || Math.max(width ?? 0, height ?? 0) * scale > MAX_ENLARGED_SIDE
      ? ` (at most ${MAX_ENLARGED_SIDE} a side)`
      : '';
  return `${asked}, enlarged ×${scale}${capped}`;
}

function inputText(input: RecordedInput): string {
  const hash =
    input.sha256 === null ? 'generated first' : input.sha256 === '' ? 'missing' : `sha256 ${input.sha256.slice(0, 12)}`;
  return 'from' in input ? `${input.file} from image "${input.from}" (${hash})` : `${input.file} (${hash})`;
}

function valueText(value: JsonValue): string {
  if (value === null) return '(none)';
  if (typeof value === 'object' && !Array.isArray(value) && ('file' in value || 'from' in value))
    return inputText(value as unknown as RecordedInput);
  return typeof value === 'string' ? value : JSON.stringify(value);
}
