import type { Plan } from '../plan/index.js';

/** Exactly the plan data, with a stable indentation and a final newline. */
export function renderJson(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}
