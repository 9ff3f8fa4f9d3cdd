import type { ImagePreview, ImagePreviewStatus, Plan } from '../plan/index.js';
import { visible, type LockedImage } from '../model/index.js';
import { count } from './summary.js';
import { commitText, escape, MARKDOWN_LIMIT, take } from './markdown.js';
import { sizeText } from './kinds/image.js';

/**
 * What a pipeline's image preview did, given to the comment as data (`--preview FILE`): the
 * image requests it made, the commit that put the images on the branch or why none could, the
 * artifact that holds them then, and where each image file can be seen, by the SHA-256 its lock
 * records (the same bytes at the base and the head are one picture).
 */
export interface PreviewRun {
  requests: number;
  commit: string | null;
  notCommitted?: PreviewNotCommitted | undefined;
  artifact?: string | undefined;
  urls: Record<string, string>;
}

export type PreviewNotCommitted = 'fork' | 'read-only' | 'push-refused';

const PREVIEW_NOT_COMMITTED: Readonly<Record<PreviewNotCommitted, string>> = {
  fork: 'the pull request comes from a fork, which this job cannot push to',
  'read-only': "this job's token cannot push to the branch",
  'push-refused': 'the push to the branch was refused (a protected branch, or the branch kept moving)',
};

/** The width a picture is shown at in the comment: a thumbnail a reviewer can open whole. */
const PICTURE_WIDTH = 320;

/**
 * The comment's lines about the run's preview: the requests it made, and where its images are; whether the merge
 * generates any is the plans' to say (`generates`: some plan still generates images).
 */
export function previewRunLines(run: PreviewRun, generates: boolean): string[] {
  const requests = count(run.requests, 'image request');
  if (run.notCommitted !== undefined) {
    const artifact = run.artifact === undefined ? "the job's artifacts" : `the job's artifact ${escape(run.artifact)}`;
    return [
      `:warning: **The images were not committed to the branch:** ${PREVIEW_NOT_COMMITTED[run.notCommitted]}. ` +
        `The preview made ${requests}; what it generated is in ${artifact}, not shown here. ` +
        'The merge generates the images again (the same bytes only where the file pins their seeds).',
      '',
    ];
  }
  const where =
    run.commit === null
      ? 'the images on the branch are those its files and lock declare'
      : `the new and changed images committed to the branch in ${commitText(run.commit)}`;
  const merge = generates ? 'the merge generates what the plan below still does' : 'the merge generates no image';
  return [`:frame_with_picture: **Image preview:** ${requests}; ${where}; ${merge}.`, ''];
}

/** The share of an account's part of the comment its images may take. */
const IMAGES_SHARE = 0.3;

const STATUS_WORDS: Readonly<Record<ImagePreviewStatus, string>> = {
  new: 'new',
  changed: 'changed',
  removed: 'removed',
};

/**
 * The images the change adds, changes or removes (Plan.previews), as a table: each with its
 * prompt, size, seeds and files, the picture now and, when changed or removed, the one before.
 * A file the preview gave no address for is named, not shown. The rows take at most a share of
 * `limit`, the account's part of the comment, so that the plan's own changes are never crowded
 * out; the rest are counted.
 */
export function previewLines(plan: Plan, run: PreviewRun | undefined, limit = MARKDOWN_LIMIT): string[] {
  const previews = plan.previews ?? [];
  if (previews.length === 0) return [];
  const counts = (['new', 'changed', 'removed'] as const).flatMap((status) => {
    const n = previews.filter((preview) => preview.status === status).length;
    return n > 0 ? [`${n} ${STATUS_WORDS[status]}`] : [];
  });
  const rows = previews.map((preview) => previewRow(preview, run?.urls ?? {}));
  const kept = take(rows, Math.floor(limit * IMAGES_SHARE));
  const more = rows.length - kept.length;
  return [
    `#### Images of this change (${counts.join(', ')})`,
    '',
    '| image | now | before |',
    '|---|---|---|',
    ...kept,
    ...(more > 0
      ? [`| … ${count(more, 'more image')}: no room in the comment; the lock at the head commit lists every one | | |`]
      : []),
    '',
  ];
}

function previewRow(preview: ImagePreview, urls: Record<string, string>): string {
  const shown = preview.after ?? preview.before;
  const about = [`**${STATUS_WORDS[preview.status]}** ${escape(preview.name)}`, ...(shown ? describe(shown) : [])];
  return `| ${about.join('<br>')} | ${pictures(preview.after, preview.name, urls)} | ${pictures(preview.before, preview.name, urls)} |`;
}

/** The prompt, the size and seeds, and the files of a locked image, each a line of its cell. */
function describe(image: LockedImage): string[] {
  const { params } = image.request;
  const lines: string[] = [];
  // The lock is the pull request's text: its params are not checked as the file's are, so any of them may be markup.
  const { prompt } = params;
  if (prompt !== undefined)
    lines.push(`prompt: ${escape(typeof prompt === 'string' ? prompt : JSON.stringify(prompt))}`);
  else lines.push(`operation: ${escape(image.request.operation)}`);
  const seeds = image.seeds.length === 1 ? `seed ${image.seeds[0]}` : `seeds ${image.seeds.join(', ')}`;
  lines.push(`${escape(sizeText(image.request))}, ${seeds}`);
  lines.push(...image.outputs.map((output) => escape(output.path)));
  return lines;
}

/** Each file of a locked image as a picture at a bounded width, or its path when it has no address. */
function pictures(image: LockedImage | null, name: string, urls: Record<string, string>): string {
  if (image === null) return '';
  return image.outputs
    .map((output) => {
      const url = Object.hasOwn(urls, output.sha256) ? urls[output.sha256] : undefined;
      return url === undefined
        ? `_not shown_`
        : `<img src="${attribute(url)}" width="${PICTURE_WIDTH}" alt="${attribute(visible(name))}">`;
    })
    .join(' ');
}

/** Text in a double-quoted HTML attribute inside a table cell. */
function attribute(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '&#124;');
}
