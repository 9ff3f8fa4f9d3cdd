import { startInTurns } from '../../api/in-turns.js';
import { linksToRecheck } from '../../plan/index.js';
import type { KindOperations } from './kind.js';

/** Ad-group links: read with their audiences to plan (see audience.ts); read again, for the audiences the plan recorded them of, to check a saved plan. */
export const adGroupLinkSource: KindOperations = {
  kind: 'adGroupLink',
  readCurrent: async (plan, { reader, list }) => {
    const present = new Set((await list()).map((summary) => summary.id));
    const ids = linksToRecheck(plan).filter((id) => present.has(id));
    const links = await startInTurns(ids, (id) => reader.adGroups(id));
    return { adGroupIds: Object.fromEntries(ids.map((id, index) => [String(id), (links[index] ?? []).map((link) => link.adGroupId)])) };
  },
};
