import { AppError } from '../errors.js';
import type { ApplyView } from '../operations/apply.js';
import {
  APPROVAL_PROMPT,
  applySummary,
  CANCELLED_TEXT,
  noChangesText,
  progressLine,
  renderPlans,
  type Style,
} from '../render/index.js';
import type { Io } from './io.js';

/**
 * The apply use case as text: plans and the summary on stdout, one progress line per change on stderr, the prompt on a
 * terminal.
 */
export function textApplyView(io: Pick<Io, 'stdout' | 'stderr' | 'stdinIsTTY' | 'readLine'>, style: Style): ApplyView {
  return {
    showPlans: (plans) => io.stdout(renderPlans(plans, 'text', style)),
    showNoChanges: (plans) => io.stdout(plans.map((plan) => `${noChangesText(plan)}\n`).join('')),
    confirm: async () => {
      if (!io.stdinIsTTY) {
        throw new AppError({
          code: 'NOT_APPROVED',
          source: 'user',
          summary: 'refusing to apply without a terminal to confirm on',
          hint: 'pass --auto-approve (in a pipeline), or apply a plan saved with `audiences plan --out`',
        });
      }
      io.stdout(APPROVAL_PROMPT);
      const answer = await io.readLine();
      if (answer?.trim() === 'yes') return true;
      io.stdout(CANCELLED_TEXT);
      return false;
    },
    progress: (result, adAccountId) => io.stderr(`${progressLine(result, style, adAccountId)}\n`),
    finished: (applied, fromSavedPlan) => io.stdout(applySummary(applied, fromSavedPlan)),
  };
}
