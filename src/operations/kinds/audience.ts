import { isApiError } from '../../api/api-error.js';
import { startInTurns } from '../../api/in-turns.js';
import type { AdGroupLink, DesiredState, LiveAudience, LiveState, Long } from '../../model/index.js';
import { neededReads, rereadIds } from '../../plan/index.js';
import type { AccountReader } from '../plan.js';
import type { KindOperations } from './kind.js';

/**
 * Audiences, with the ad groups that use them: one list, a single read per audience the plan
 * needs, and the ad groups where links matter (see neededReads). To check a saved plan: the
 * list again, and the audiences it updates whose date did not move, read again.
 */
export const audienceSource: KindOperations = {
  kind: 'audience',
  read: async (desired, { reader, signal }) => readAudiences(desired, reader, signal),
  readCurrent: async (plan, { reader, list }) => {
    const audiences = await list();
    const ids = rereadIds(plan, audiences);
    const reads = await startInTurns(ids, (id) => reader.read(id));
    return { audiences, reread: Object.fromEntries(ids.map((id, index) => [String(id), reads[index] as LiveAudience])) };
  },
};

/**
 * The list, then the reads the plan needs, concurrently (the transport bounds how many are in
 * flight). An answer in a shape the plan cannot use makes only its own audience unreadable.
 * Once another kind's read failed (`signal`), no more requests start.
 */
async function readAudiences(desired: DesiredState, reader: AccountReader, signal: AbortSignal | undefined): Promise<Partial<LiveState>> {
  const audiences = await reader.list();
  signal?.throwIfAborted();
  const needed = neededReads(desired, audiences);
  const links = linkReader(reader);
  needed.linkIds.forEach(links.start);
  const unreadable: Record<string, string> = {};
  const reads = await startInTurns(needed.detailIds, async (id) => {
    signal?.throwIfAborted();
    try {
      const detail = await reader.read(id);
      if (needed.needsLinks(id, detail)) links.start(id);
      return detail;
    } catch (error) {
      if (!isApiError(error) || error.kind !== 'invalid-response') throw error;
      unreadable[String(id)] = error.summary;
      return undefined;
    }
  }).catch((error: unknown) => {
    links.stop();
    throw error;
  });
  const details = Object.fromEntries(needed.detailIds.flatMap((id, index) => (reads[index] ? [[String(id), reads[index]]] : [])));
  return { audiences, details, links: await links.all(), ...(Object.keys(unreadable).length > 0 ? { unreadable } : {}) };
}

/**
 * The seam of one performance choice: an audience about to change needs its ad groups, and
 * they are read as soon as its own read shows the change, while the other reads are still in
 * flight, not in a second round after all of them. The benchmark's bound counts the reads and
 * the ad-group reads as one stage, and "plan, 10% changed" stays within 0.05 of the ratio of
 * "plan, no changes" (README, Performance). Once the plan has failed, no more link reads start.
 */
function linkReader(reader: AccountReader) {
  const links: Record<string, AdGroupLink[]> = {};
  const reads: Array<Promise<void>> = [];
  let stopped = false;
  return {
    start: (id: Long): void => {
      if (stopped) return;
      const read = reader.adGroups(id).then((adGroups) => {
        links[String(id)] = adGroups;
      });
      // Awaited in `all` once every read is in (dropped if a read fails); until then a failure
      // must not count as unhandled.
      read.catch(() => undefined);
      reads.push(read);
    },
    stop: (): void => {
      stopped = true;
    },
    all: async (): Promise<Record<string, AdGroupLink[]>> => {
      await Promise.all(reads);
      return links;
    },
  };
}
