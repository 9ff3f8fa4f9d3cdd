import type { AppliedAccount, ChangeResult } from '../plan/index.js';
import type { Style } from './style.js';
import { visible } from '../model/index.js';

/** What `apply` asks on a terminal before changing anything. */
export const APPROVAL_PROMPT = '\nDo you want to apply these changes? Only `yes` is accepted.\n  Enter a value: ';
export const CANCELLED_TEXT = '\nApply cancelled: nothing was changed.\n';

/** One line per finished change, as it finishes. */
export function progressLine(result: ChangeResult, style: Style): string {
  if (result.status === 'ok') return `${style.add('ok')}      ${describeChange(result)}${result.cause === undefined ? '' : `: ${visible(result.cause)}`}`;
  if (result.status === 'skipped') return `${style.warn('skipped')} ${describeChange(result)}: ${visible(result.cause ?? '')}`;
  return `${style.error('FAILED')}  ${describeChange(result)}: ${visible(result.cause ?? '')}`;
}

/** What was done and what was not, per account, with what to do next. */
export function applySummary(applied: AppliedAccount[], fromSavedPlan: boolean): string {
  const lines: string[] = [''];
  for (const { plan, result, remaining, unverified, interrupted } of applied) {
    const { ok, failed, skipped } = result.summary;
    const state = interrupted ? 'interrupted' : failed + skipped === 0 ? 'complete' : 'incomplete';
    lines.push(`Apply ${state} for ad account ${plan.adAccountId}: ${ok} done, ${failed} failed, ${skipped} skipped.`);
    const notDone = result.results.filter((change) => change.status !== 'ok');
    if (notDone.length > 0) {
      lines.push('Not done:');
      for (const change of notDone) lines.push(`  ${describeChange(change)}: ${change.status}, ${visible(change.cause ?? '')}`);
      const fix = interrupted ? 'Run' : fromSavedPlan ? 'Fix the cause, then run' : 'Fix the cause and run';
      lines.push(
        fromSavedPlan ? `${fix} \`audiences plan\` again: the saved plan is now stale, a new plan finishes the job.` : `${fix} \`audiences apply\` again: it plans anew and finishes the job.`,
      );
    }
    if (remaining.length > 0) {
      lines.push('After applying, these still differ (please report this):');
      for (const line of remaining) lines.push(`  ${visible(line)}`);
    }
    if (unverified !== null) {
      lines.push(`The account could not be read back to check the result: ${visible(unverified)}.`, 'Run `audiences plan` to see whether anything is left to do.');
    }
  }
  return `${lines.join('\n')}\n`;
}

function describeChange(result: ChangeResult): string {
  const name = visible(result.name);
  if (result.action === 'generate' || result.action === 'remove') return `${result.action} image "${name}"`;
  if (result.action === 'unlink') return `unlink ad group ${result.adGroupId} from audience "${name}" (id ${result.id})`;
  return `${result.action} audience "${name}"${result.id === null ? '' : ` (id ${result.id})`}`;
}
