import type { Plan } from '../plan/index.js';
import { businessLine } from './business.js';
import { buildBlocks, type Block } from './rows.js';
import { count, hasChanges, noChangesText, problemText, summaryText } from './summary.js';
import { visible } from '../model/index.js';

/** Pull-request comments are limited to 65,536 characters; keep a margin for the note. */
export const MARKDOWN_LIMIT = 65_000;

/**
 * The plan as a pull-request comment: the summary and problems first, one table row per
 * change, the details folded in a `diff` block. Kept under the comment size limit: what does
 * not fit is cut, with a note saying how much.
 */
export function renderMarkdown(plan: Plan, limit = MARKDOWN_LIMIT): string {
  const head: string[] = [`### audiences plan for ad account ${plan.adAccountId}`, ''];
  if (plan.business) head.push(escape(businessLine(plan.business)), '');
  head.push(hasChanges(plan) ? `**Plan: ${summaryText(plan)}.**` : `**${noChangesText(plan)}**`, '');
  if (plan.errors.length > 0) {
    head.push(`**${count(plan.errors.length, 'error')}: this plan cannot be applied.**`, '');
    head.push(...plan.errors.map((error) => `- :x: error${escape(problemText(error))}${error.hint ? ` — _${escape(error.hint)}_` : ''}`), '');
  }
  if (plan.warnings.length > 0) {
    head.push(...plan.warnings.map((warning) => `- :warning: warning${escape(problemText(warning))}${warning.hint ? ` — _${escape(warning.hint)}_` : ''}`), '');
  }
  if (!hasChanges(plan)) return `${head.join('\n').trimEnd()}\n`;

  const blocks = buildBlocks(plan);
  const table = ['| | change |', '|---|---|', ...blocks.map((block) => `| \`${block.symbol}\` | ${escape(block.title)} |`)];
  const details = blocks.flatMap(diffLines);
  return fit(head, table, details, limit);
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
  const open = ['', '<details><summary>Details</summary>', '', '```diff'];
  const close = ['```', '', '</details>'];
  const size = (lines: string[]): number => lines.reduce((total, line) => total + line.length + 1, 0);
  const budget = limit - size(head) - size(open) - size(close) - 200;
  const keptTable = take(table, Math.floor(budget * 0.4));
  const keptDetails = take(details, budget - size(keptTable));
  const cut = table.length - keptTable.length + (details.length - keptDetails.length);
  const out = [...head, ...keptTable];
  if (keptTable.length < table.length) out.push(`| | … ${table.length - keptTable.length} more changes |`);
  out.push(...open, ...keptDetails, ...close);
  if (cut > 0) out.push('', `_The plan is too long for one comment: ${count(cut, 'line')} were cut. Run \`audiences plan\` to see all of it._`);
  return `${out.join('\n')}\n`;
}

/** The longest head of `lines` that fits in `budget` characters. */
function take(lines: string[], budget: number): string[] {
  let used = 0;
  let kept = 0;
  for (const line of lines) {
    if (used + line.length + 1 > budget) break;
    used += line.length + 1;
    kept += 1;
  }
  return lines.slice(0, kept);
}

/** Text in a table cell or a list item: visible (see visible.ts), with no `|` to end the cell and no `<` to open a tag. */
function escape(text: string): string {
  return visible(text).replace(/\|/g, '\\|').replace(/</g, '&lt;');
}
