import type { Plan } from '../plan/index.js';
import { actionCount, count, hasChanges } from './summary.js';
import { previewLines, previewRunLines, type PreviewRun } from './previews.js';
import { commitText, escape, fenceFor, MARKDOWN_LIMIT, renderMarkdown } from './markdown.js';
import { visible } from '../model/index.js';

/**
 * Where a comment comes from: the files planned (they name the comment), and the commit when the pipeline gives one.
 */
export interface CommentContext {
  files: string[];
  commit?: string | undefined;
  /** What the pipeline's image preview did (`--preview`), and where each image can be seen. */
  preview?: PreviewRun | undefined;
}

/** A failed command as data: what JSON prints and the Markdown comment shows. */
export interface ErrorReport {
  code: string;
  summary: string;
  detail?: string;
  hint?: string;
  /** The problems of invalid files, each at its place. */
  problems?: Array<{ file: string; line: number; column: number; message: string; hint?: string }>;
}

/** The default desired-state file, which a plan without files reads. */
const DEFAULT_FILE = 'audiences.yaml';

/**
 * The hidden first line that names a comment by the files it plans: a pipeline finds its own
 * comment by it (and no other), to update it rather than add another, whether the plan
 * succeeded or failed.
 */
export function commentMarker(files: string[]): string {
  const named = (files.length === 0 ? [DEFAULT_FILE] : files).map((file) =>
    encodeURIComponent(file).replace(/%2F/g, '/'),
  );
  return `<!-- audiences-plan files=${named.join(',')} -->`;
}

/**
 * The plans of one run as one pull-request comment: the marker, the commit, then a section
 * per ad account (each with its own marker). The whole stays under `limit` characters: each
 * section gets an equal share, and says what it cut.
 */
export function renderComment(plans: Plan[], context: CommentContext, limit = MARKDOWN_LIMIT): string {
  const head = commentHead(context);
  if (context.preview)
    head.push(
      ...previewRunLines(
        context.preview,
        plans.some((plan) => actionCount(plan, 'generate') > 0),
      ),
    );
  if (plans.length > 1)
    head.push(plans.map((plan) => `- ad account ${plan.adAccountId}: ${accountState(plan)}`).join('\n'), '');
  const top = head.join('\n');
  const share = Math.floor((limit - top.length) / Math.max(1, plans.length)) - 2;
  return `${[top.trimEnd(), ...plans.map((plan) => renderMarkdown(plan, share, previewLines(plan, context.preview, share)).trimEnd())].join('\n\n')}\n`;
}

/** A failed plan in the same comment form: the error, its hint, and each problem at its file position. */
export function renderErrorComment(report: ErrorReport, context: CommentContext): string {
  const out = commentHead(context);
  out.push(`:x: **The plan failed: error[${escape(report.code)}]**: ${escape(report.summary)}`, '');
  if (report.problems && report.problems.length > 0) {
    out.push(
      ...report.problems.map(
        (problem) =>
          `- **${escape(place(problem))}**: ${escape(problem.message)}${problem.hint ? ` — _${escape(problem.hint)}_` : ''}`,
      ),
      '',
    );
  } else if (report.detail) {
    const lines = report.detail.split('\n').map(visible);
    const fence = fenceFor(lines);
    out.push(`${fence}text`, ...lines, fence, '');
  }
  if (report.hint) out.push(`**Hint:** ${escape(report.hint)}`, '');
  return `${out.join('\n').trimEnd()}\n`;
}

/** `file:line:column`, or the file alone for a problem of the whole file (line 0). */
function place(problem: { file: string; line: number; column: number }): string {
  return problem.line > 0 ? `${problem.file}:${problem.line}:${problem.column}` : problem.file;
}

function commentHead(context: CommentContext): string[] {
  const head = [commentMarker(context.files), '## audiences plan', ''];
  if (context.commit) head.push(`Planned at commit ${commitText(context.commit)}.`, '');
  return head;
}

function accountState(plan: Plan): string {
  if (plan.errors.length > 0) return count(plan.errors.length, 'error');
  return hasChanges(plan) ? count(plan.changes.length, 'change') : 'no changes';
}
