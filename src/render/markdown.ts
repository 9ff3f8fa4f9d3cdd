import type { ChangeAction, Plan } from '../plan/index.js';
import type { ActionWords } from './kind.js';
import { rendererOf, SHOWN_KINDS } from './kinds/index.js';
import { businessLine } from './business.js';
import type { Block, Mark } from './block.js';
import { buildSections, leadLine, serviceCheckItems, SERVICE_CHECKS_NOTE } from './rows.js';
import {
  actionCount,
  count,
  estimateText,
  hasChanges,
  noChangesText,
  partialText,
  problemText,
  summaryText,
} from './summary.js';
import { quoted, visible } from '../model/index.js';

/** Pull-request comments are limited to 65,536 characters; keep a margin for the note. */
export const MARKDOWN_LIMIT = 65_000;

/**
 * One account's plan as a section of a pull-request comment: its own hidden marker, the
 * summary, the deletes and unlinks called out with their count, every file it deletes (never
 * folded or cut: a reviewer must see each at a glance), the problems, what only the service
 * checks, one table row per change (destructive ones first) with the fields it writes and its
 * marks, and the details folded in a `diff` block. `images`: the lines that show the images
 * the change adds, changes or removes (see previewLines), before the table. Kept under `limit`
 * characters: what does not fit is cut, with a note saying how much.
 */
export function renderMarkdown(plan: Plan, limit = MARKDOWN_LIMIT, images: string[] = []): string {
  const head: string[] = [accountMarker(plan.adAccountId), `### Ad account ${plan.adAccountId}`, ''];
  const partial = partialText(plan);
  if (partial) head.push(`:warning: **${escape(partial)}.**`, '');
  if (plan.business) head.push(escape(businessLine(plan.business)), '');
  head.push(hasChanges(plan) ? `**Plan: ${summaryText(plan)}.**` : `**${noChangesText(plan)}**`, '');
  const estimate = estimateText(plan);
  if (estimate) head.push(`${escape(estimate)}.`, '');
  const sections = buildSections(plan);
  const destructive = destructiveText(plan);
  if (destructive)
    head.push(
      `:warning: **${destructive}**: review them first (they are listed first${sections.length > 1 ? ' in each section' : ''}).`,
      '',
    );
  const deleted = deletedFiles(plan);
  if (deleted.length > 0) head.push(`**It deletes ${count(deleted.length, 'file')}:**`, '', ...deleted, '');
  if (plan.errors.length > 0) {
    head.push(`**${count(plan.errors.length, 'error')}: this plan cannot be applied.**`, '');
    head.push(
      ...plan.errors.map(
        (error) => `- :x: error${escape(problemText(error))}${error.hint ? ` — _${escape(error.hint)}_` : ''}`,
      ),
      '',
    );
  }
  if (plan.warnings.length > 0) {
    head.push(
      ...plan.warnings.map(
        (warning) =>
          `- :warning: warning${escape(problemText(warning))}${warning.hint ? ` — _${escape(warning.hint)}_` : ''}`,
      ),
      '',
    );
  }
  const checks = serviceCheckItems(plan);
  if (checks.length > 0)
    head.push(
      `:information_source: **Note:** ${SERVICE_CHECKS_NOTE}`,
      '',
      ...checks.map((item) => `- ${escape(item)}`),
      '',
    );
  head.push(...images);
  if (!hasChanges(plan)) return `${head.join('\n').trimEnd()}\n`;

  // An account declared in several files says which file each change comes from.
  const byFile = plan.changes.some((change) => change.file !== undefined);
  const table = sections.flatMap((section, index) => [
    ...(section.lead
      ? [...(index > 0 ? [''] : []), `#### ${section.lead.title}`, '', leadLine(section.lead, escape, commitText), '']
      : []),
    ...(byFile
      ? ['| | change | file | fields | marks |', '|---|---|---|---|---|']
      : ['| | change | fields | marks |', '|---|---|---|---|']),
    ...section.blocks.map(
      (block) =>
        `| \`${block.symbol}\` | ${escape(block.title)} | ${byFile ? `${block.file === undefined ? 'no file (prune)' : escape(block.file)} | ` : ''}${escape(block.fields.join(', '))} | ${marksCell(block.marks)} |`,
    ),
  ]);
  // In the details, a hunk header (coloured apart) starts the changes made outside the tool.
  const details = sections.flatMap((section) => [
    ...(section.lead ? [`@@ ${section.lead.title.toLowerCase()} @@`] : []),
    ...section.blocks.flatMap(diffLines),
  ]);
  return fit(head, table, details, limit);
}

/** The hidden marker of one account's section. */
export function accountMarker(adAccountId: number): string {
  return `<!-- audiences-plan account=${adAccountId} -->`;
}

/** "This plan deletes 2 audiences, unlinks 1 ad group": what a reviewer must not miss, or undefined. */
function destructiveText(plan: Plan): string | undefined {
  const parts = SHOWN_KINDS.flatMap((renderer) =>
    Object.entries<ActionWords>(renderer.actions).flatMap(([action, words]) => {
      const n = actionCount(plan, action as ChangeAction);
      return words.destroys !== undefined && n > 0 ? [`${words.destroys} ${count(n, renderer.noun)}`] : [];
    }),
  );
  return parts.length === 0 ? undefined : `This plan ${parts.join(', ')}`;
}

/**
 * A list item per file the plan deletes, after the image it was made for (so that no path
 * begins an item). Marked `*`: the warnings that may follow are a `-` list, not more of these.
 */
function deletedFiles(plan: Plan): string[] {
  return plan.changes.flatMap((change) => {
    const renderer = rendererOf(change);
    return (renderer.deletes?.(change) ?? []).map(
      (path) => `* ${renderer.noun} ${escape(quoted(change.name))}: ${escape(path)}`,
    );
  });
}

/** A change's marks in its table row: LIVE in bold, each risk behind a warning sign, the effects as they are. */
function marksCell(marks: Mark[]): string {
  return marks
    .map((mark) =>
      mark.kind === 'live'
        ? `**${mark.text}**`
        : mark.kind === 'risk'
          ? `:warning: **${escape(mark.text)}**`
          : escape(mark.text),
    )
    .join(' · ');
}

/** Lines for a `diff` block: the first column carries the symbol so the block is coloured. */
function diffLines(block: Block): string[] {
  const lines = [`${block.symbol === '~' ? '!' : block.symbol} ${block.title}`];
  for (const line of block.lines) {
    const mark = line.kind === 'added' ? '+' : line.kind === 'removed' ? '-' : ' ';
    if (line.kind === 'field') lines.push(`${line.removed ? '-' : ' '}     ${line.label}: ${line.text}`);
    else lines.push(`${mark}       ${line.label}: ${line.text}`);
  }
  return lines;
}

function fit(head: string[], table: string[], details: string[], limit: number): string {
  const fence = fenceFor(details);
  const open = ['', '<details><summary>Details</summary>', '', `${fence}diff`];
  const close = [fence, '', '</details>'];
  const size = (lines: string[]): number => lines.reduce((total, line) => total + line.length + 1, 0);
  const budget = limit - size(head) - size(open) - size(close) - 200;
  const keptTable = take(table, Math.floor(budget * 0.4));
  // A cut table ends on a row or its header's rule, not on the lead or header of a section whose rows were cut.
  while (keptTable.length > 0 && !/^\| `|^\|---/.test(keptTable[keptTable.length - 1] ?? '')) keptTable.pop();
  const keptDetails = take(details, budget - size(keptTable));
  const cut = table.length - keptTable.length + (details.length - keptDetails.length);
  const out = [...head, ...keptTable];
  const cutRows = table.slice(keptTable.length).filter((line) => line.startsWith('| `')).length;
  if (keptTable.length < table.length) out.push(`| | … ${cutRows} more changes | | |`);
  out.push(...open, ...keptDetails, ...close);
  if (cut > 0)
    out.push(
      '',
      `_The plan is too long for one comment: ${count(cut, 'line')} were cut. Run \`audiences plan\` to see all of it._`,
    );
  return `${out.join('\n')}\n`;
}

/**
 * A ref or commit from outside: a commit's hash stays as it is, so that it links to the commit; anything else is made
 * inert.
 */
export function commitText(ref: string): string {
  return /^[0-9a-f]{7,40}$/i.test(ref) ? ref : escape(ref);
}

/** A code fence longer than any run of backticks in `lines`, which would otherwise close the block early. */
export function fenceFor(lines: string[]): string {
  // A loop, not Math.max(...lines): a plan of thousands of changes has more lines than a call takes arguments.
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** The longest head of `lines` that fits in `budget` characters. */
export function take(lines: string[], budget: number): string[] {
  let used = 0;
  let kept = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    used += line.length + 1;
    kept += 1;
  }
  return lines.slice(0, kept);
}

/**
 * Text in a table cell or a list item, from the file, the account or the service: visible (see
 * visible.ts), and inert as Markdown where a pipeline posts it (GitHub, GitLab): no `|` ends the
 * cell, no tag opens, no link or image is made of `[x](url)`, no emphasis, code span or math
 * (`$x$`, `$$x$$`); no bare URL (`https://…`, `www.…`) or emoji code becomes one, and no `@name`,
 * `#1`, `GH-1`, `!1`, `~label`, `%milestone` or commit-like word notifies anyone or links.
 * Markup is escaped with a backslash; what starts a reference, an autolink or math becomes a
 * character reference, which CommonMark never reads as markup (and `&` too, so that a name
 * holding `&#64;` shows as written).
 */
export function escape(text: string): string {
  return visible(text).replace(INERT, (match) => {
    const first = match.charAt(0);
    const entity =
      MARKDOWN_ENTITIES[first] ??
      (match.length > 1 || /[:.-]/.test(first) ? `&#${first.charCodeAt(0)};` : `\\${first}`);
    return `${entity}${match.slice(1)}`;
  });
}

/**
 * What `escape` changes: a word that may be a commit's hash (7 to 40 hexadecimal digits, a letter
 * among them), the `-` of `GH-1`, the `.` of `www.`, a `:` that starts `://` or an emoji code (a
 * word: `file:4:11` stays as it is), the `!` of `!1` and the `%` of `%milestone` (not of `30%`),
 * and each character that makes markup or starts a reference.
 */
const INERT =
  /\b(?=[0-9]*[a-f])[0-9a-f]{7,40}\b|(?<=\bgh)-(?=\d)|(?<=\bwww)\.|:(?=\/\/|[a-z_+-][\w+-]*:)|!(?=\d)|%(?=[\w"])|[\\`*_[\]|~<>@#$&]/gi;

const MARKDOWN_ENTITIES: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '@': '&#64;',
  '#': '&#35;',
  $: '&#36;',
  '!': '&#33;',
  '%': '&#37;',
  '~': '&#126;',
};
