import type { AppliedAccount, ChangeResult } from '../plan/index.js';
import { rendererOfResult } from './kinds/index.js';
import type { Style } from './style.js';
import { quoted, visible } from '../model/index.js';

/** What `apply` asks on a terminal before changing anything. */
export const APPROVAL_PROMPT = '\nDo you want to apply these changes? Only `yes` is accepted.\n  Enter a value: ';
export const CANCELLED_TEXT = '\nApply cancelled: nothing was changed.\n';

/**
 * One line per finished change, as it finishes: `ok` (with "verified: …" when its answer was
 * lost and the tool looked, saying how), `FAILED` (the service refused it), `UNKNOWN` (its
 * answer was lost and looking could not settle it) or `skipped`. The tags are one width. With
 * `adAccountId` (the changes of several accounts are applied at once, their lines interleaved), the
 * line starts with the account.
 */
export function progressLine(result: ChangeResult, style: Style, adAccountId?: number): string {
  const account = adAccountId === undefined ? '' : `ad account ${adAccountId}: `;
  const line = (tag: string, styled: (text: string) => string, ...notes: Array<string | undefined>): string => {
    const said = notes.filter((note) => note !== undefined).map(visible);
    return `${account}${styled(tag)}${' '.repeat(TAG_WIDTH - tag.length)}${describeChange(result)}${said.length === 0 ? '' : `: ${said.join('; ')}`}`;
  };
  switch (result.status) {
    case 'ok':
      return line(
        'ok',
        style.add,
        result.written === undefined ? undefined : `wrote ${writtenText(result.written)}`,
        result.verified === undefined ? undefined : `verified: ${result.verified}`,
        result.cause,
      );
    case 'skipped':
      return line('skipped', style.warn, result.cause ?? '');
    case 'unknown':
      return line('UNKNOWN', style.error, result.cause ?? '');
    case 'failed':
      return line('FAILED', style.error, result.cause ?? '');
  }
}

/** The files an image generation wrote, each with its seed: where to look, and how to make it again. */
function writtenText(written: NonNullable<ChangeResult['written']>): string {
  return written.map((file) => `${file.path} (seed ${file.seed})`).join(', ');
}

/** The width of a progress line's tag and the blanks after it: the changes line up. */
const TAG_WIDTH = 8;

/** The counts of an account's apply: done, failed and skipped always; verified and unknown when there are any. */
function countsText({ ok, verified, failed, unknown, skipped }: AppliedAccount['result']['summary']): string {
  return [
    `${ok} done`,
    ...(verified > 0 ? [`${verified} verified after a lost answer`] : []),
    `${failed} failed`,
    ...(unknown > 0 ? [`${unknown} unknown`] : []),
    `${skipped} skipped`,
  ].join(', ');
}

/** What was done and what was not, per account, with what to do next. */
export function applySummary(applied: AppliedAccount[], fromSavedPlan: boolean): string {
  const lines: string[] = [''];
  for (const { plan, result, remaining, unverified, interrupted } of applied) {
    const { failed, unknown, skipped } = result.summary;
    const state = interrupted ? 'interrupted' : failed + unknown + skipped === 0 ? 'complete' : 'incomplete';
    lines.push(`Apply ${state} for ad account ${plan.adAccountId}: ${countsText(result.summary)}.`);
    const verified = result.results.filter((change) => change.status === 'ok' && change.verified !== undefined);
    if (verified.length > 0) {
      lines.push('Verified after a lost answer (done):');
      for (const change of verified) lines.push(`  ${describeChange(change)}: ${visible(change.verified ?? '')}`);
    }
    // What else happened to a change done (an adopted race, a check cut short) is said again here, where it is read.
    const noted = result.results.filter((change) => change.status === 'ok' && change.cause !== undefined);
    if (noted.length > 0) {
      lines.push('Done, with a note:');
      for (const change of noted) lines.push(`  ${describeChange(change)}: ${visible(change.cause ?? '')}`);
    }
    const notDone = result.results.filter((change) => change.status !== 'ok');
    if (notDone.length > 0) {
      lines.push('Not done:');
      for (const change of notDone)
        lines.push(`  ${describeChange(change)}: ${change.status}, ${visible(change.cause ?? '')}`);
      if (unknown > 0)
        lines.push(
          'Whether the changes marked unknown were made, `audiences plan` shows: it lists what is still to do.',
        );
      const fix = interrupted ? 'Run' : fromSavedPlan ? 'Fix the cause, then run' : 'Fix the cause and run';
      lines.push(
        fromSavedPlan
          ? `${fix} \`audiences plan\` again: the saved plan is now stale, a new plan finishes the job.`
          : `${fix} \`audiences apply\` again: it plans anew and finishes the job.`,
      );
    }
    if (remaining.length > 0) {
      lines.push('After applying, these still differ (please report this):');
      for (const line of remaining) lines.push(`  ${visible(line)}`);
    }
    if (unverified !== null) {
      lines.push(
        `The account could not be read back to check the result: ${visible(unverified)}.`,
        'Run `audiences plan` to see whether anything is left to do.',
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function describeChange(result: ChangeResult): string {
  // Quoted first, then made visible: a backslash the name holds stays apart from one that writes out a control.
  return rendererOfResult(result).describe(result, visible(quoted(result.name)));
}
