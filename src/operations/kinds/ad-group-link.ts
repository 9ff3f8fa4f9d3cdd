import { isNotFound } from '../../api/audiences.js';
import { startInTurns } from '../../api/in-turns.js';
import { linksToRecheck } from '../../plan/index.js';
import type { KindOperations } from './kind.js';

/**
 * Ad-group links: read with their audiences to plan (see audience.ts); read again, for the
 * audiences the plan recorded them of, to check a saved plan (an audience whose ad groups
 * answer the service's 404 is gone since the list).
 */
export const adGroupLinkSource: KindOperations = {
  kind: 'adGroupLink',
  readCurrent: async (plan, { reader, list, gone }) => {
    const present = new Set((await list()).map((summary) => summary.id));
    const ids = linksToRecheck(plan).filter((id) => present.has(id));
    const links = await startInTurns(ids, async (id) => {
      try {
        return (await reader.adGroups(id)).map((link) => link.adGroupId);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        gone(id);
        return undefined;
      }
    });
    return { adGroupIds: Object.fromEntries(ids.flatMap((id, index) => (links[index] === undefined ? [] : [[String(id), links[index]]]))) };
  },
};
