import { renderComment, type CommentContext } from './comment.js';
import type { Style } from './style.js';
import { renderText } from './text.js';
import type { Plan } from '../plan/index.js';

/**
 * The plans of one run (one per file) in a format: JSON is always an array of plans, one file
 * or several alike; Markdown is one comment with a section per account; text, one after another.
 */
export function renderPlans(
  plans: Plan[],
  format: 'text' | 'json' | 'markdown',
  style: Style,
  context: CommentContext = { files: [] },
): string {
  if (format === 'json') return `${JSON.stringify(plans, null, 2)}\n`;
  if (format === 'markdown') return renderComment(plans, context);
  return plans.map((plan) => renderText(plan, style)).join('\n');
}
