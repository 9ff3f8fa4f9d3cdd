import { renderJson } from './json.js';
import { renderMarkdown } from './markdown.js';
import type { Style } from './style.js';
import { renderText } from './text.js';
import type { Plan } from '../plan/index.js';

/** One plan as itself; several (one per file) as an array, in every format. */
export function renderPlans(plans: Plan[], format: 'text' | 'json' | 'markdown', style: Style): string {
  if (format === 'json') return plans.length === 1 ? renderJson(plans[0] as Plan) : `${JSON.stringify(plans, null, 2)}\n`;
  const render = format === 'markdown' ? (plan: Plan) => renderMarkdown(plan) : (plan: Plan) => renderText(plan, style);
  return plans.map(render).join('\n');
}
