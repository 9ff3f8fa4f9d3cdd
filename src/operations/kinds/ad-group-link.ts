import { isNotFound } from '../../api/audiences.js';
import { startInTurns } from '../../api/in-turns.js';
import { linksToRecheck } from '../../plan/index.js';
import type { KindOperations } from './kind.js';

/**
 * Ad-group links: read with their audiences to plan (see audience.ts); read again, for the
 * audiences the plan recorded them of, to check a saved plan (null for an audience whose ad
 * groups answer the service's 404: it is gone since the list).
 */
export const adGroupLinkSource: KindOperations<'adGroupLink'> = {
  kind: 'adGroupLink',
  readCurrent: async (plan, { reader, list }) => {
    const present = new Set((await list()).map((summary) => summary.id));
    const ids = linksToRecheck(plan).filter((id) => present.has(id));
    const links = await startInTurns(ids, async (id) => {
      try {
        return (await reader.adGroups(id)).map((link) => link.adGroupId);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        return null;
      }
    });
    return { adGroupIds: Object.fromEntries(ids.map((id, index) => [String(id), links[index] ?? null])) };
  },
};
