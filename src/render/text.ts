import type { Plan } from '../plan/index.js';
import { businessLine } from './business.js';
import type { Block, Line, Mark } from './block.js';
import { buildSections, leadLine, serviceCheckItems, SERVICE_CHECKS_NOTE } from './rows.js';
import type { Style } from './style.js';
import { visible } from '../model/index.js';
import { count, estimateText, hasChanges, noChangesText, partialText, problemText, summaryText } from './summary.js';

/** The plan for a terminal: `+ ~ -` blocks, each changed field before → after, then problems and a summary. */
export function renderText(plan: Plan, style: Style): string {
  const out: string[] = [
    style.bold(`audiences plan for ad account ${plan.adAccountId}`),
    ...(plan.business ? [businessLine(plan.business)] : []),
    '',
  ];
  const partial = partialText(plan);
  if (partial) out.push(style.warn(`${visible(partial)}.`), '');
  for (const section of buildSections(plan)) {
    if (section.lead)
      out.push(
        style.bold(`${section.lead.title}:`),
        leadLine(section.lead, (text) => text, visible),
        '',
      );
    for (const block of section.blocks) out.push(...blockLines(block, style), '');
  }
  if (!hasChanges(plan)) out.push(noChangesText(plan), '');
  for (const warning of plan.warnings) {
    out.push(style.warn(`warning${problemText(warning)}`));
    if (warning.hint) out.push(`  hint: ${visible(warning.hint)}`);
  }
  for (const error of plan.errors) {
    out.push(style.error(`error${problemText(error)}`));
    if (error.hint) out.push(`  hint: ${visible(error.hint)}`);
  }
  if (plan.warnings.length + plan.errors.length > 0) out.push('');
  const checks = serviceCheckItems(plan);
  if (checks.length > 0) out.push(`note: ${SERVICE_CHECKS_NOTE}`, ...checks.map((item) => `  ${item}`), '');
  if (hasChanges(plan)) out.push(style.bold(`Plan: ${summaryText(plan)}.`));
  const estimate = estimateText(plan);
  if (estimate) out.push(`${estimate}.`);
  if (plan.errors.length > 0)
    out.push(style.error(`The plan has ${count(plan.errors.length, 'error')} and cannot be applied.`));
  return `${out.join('\n').trimEnd()}\n`;
}

const PAINT = { '+': 'add', '~': 'change', '-': 'remove' } as const;

function blockLines(block: Block, style: Style): string[] {
  const paint = style[PAINT[block.symbol]];
  const from = block.file === undefined ? '' : style.dim(` (from ${block.file})`);
  const lines = [`  ${paint(block.symbol)} ${block.title}${marksText(block.marks, style)}${from}`];
  let previousLabel: string | undefined;
  for (const line of block.lines) {
    if (line.kind === 'field') {
      lines.push(
        line.removed ? `      ${style.remove(`- ${line.label}: ${line.text}`)}` : `      ${line.label}: ${line.text}`,
      );
      previousLabel = undefined;
      continue;
    }
    if (line.label !== previousLabel) lines.push(`      ${line.label}:`);
    previousLabel = line.label;
    lines.push(memberLine(line, style));
  }
  return lines;
}

/** ` [LIVE; risk: type change; broadens ages]` after a block's title, or nothing. */
function marksText(marks: Mark[], style: Style): string {
  if (marks.length === 0) return '';
  return ` [${marks.map((mark) => (mark.kind === 'live' ? style.bold(mark.text) : mark.kind === 'risk' ? style.warn(`risk: ${mark.text}`) : mark.text)).join('; ')}]`;
}

function memberLine(line: Line, style: Style): string {
  if (line.kind === 'added') return `        ${style.add(`+ ${line.text}`)}`;
  if (line.kind === 'removed') return `        ${style.remove(`- ${line.text}`)}`;
  return `        ${style.dim(`  ${line.text}`)}`;
}
