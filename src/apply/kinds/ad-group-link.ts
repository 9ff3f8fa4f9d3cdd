import { startInTurns } from '../../api/in-turns.js';
import type { AdGroupUnlink, Change, ChangeResult } from '../../plan/index.js';
import type { ApplyKind } from '../kind.js';
import { attempt, notStarted } from '../results.js';
import { quoted } from '../../model/index.js';

function isUnlink(change: Change): change is AdGroupUnlink {
  return change.action === 'unlink';
}

/**
 * Ad-group links: each unlink is one request, all of them before any audience is changed (a delete needs its ad groups
 * released).
 */
export const adGroupLinkKind: ApplyKind<'adGroupLink'> = {
  kind: 'adGroupLink',
  apply: async (changes, { audiences, started, finished, signal }) => {
    const unlinks = changes.filter(isUnlink);
    const results = await startInTurns(unlinks, async (change) => {
      if (!signal.aborted) started(change);
      const result = signal.aborted
        ? notStarted(change)
        : await attempt(change, () => audiences.unlink(change.id, change.adGroupId));
      finished(change, result);
      return result;
    });
    return new Map(unlinks.map((change, index) => [change, results[index] as ChangeResult]));
  },
  verify: async (done, { audiences, present }) => {
    const ids = await present();
    const checks = done.map(async ({ change }) => {
      if (!isUnlink(change) || !ids.has(change.id)) return [];
      const links = await audiences.adGroups(change.id);
      return links.some((link) => link.adGroupId === change.adGroupId)
        ? [`ad group ${change.adGroupId} still uses audience ${quoted(change.name)} (id ${change.id})`]
        : [];
    });
    return (await Promise.all(checks)).flat();
  },
};
