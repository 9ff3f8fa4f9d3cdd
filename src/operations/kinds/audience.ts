import { isApiError } from '../../api/api-error.js';
import { isNotFound } from '../../api/audiences.js';
import { startInTurns } from '../../api/in-turns.js';
import type { AdGroupLink, DesiredState, LiveAudienceSummary, LiveState, Long } from '../../model/index.js';
import { neededReadsOfAll, rereadIds } from '../../plan/index.js';
import type { AccountReader } from '../account-reader.js';
import type { KindOperations } from './kind.js';

/**
 * Audiences, with the ad groups that use them: one list, a single read per audience the plan
 * needs, and the ad groups where links matter (see neededReads). To check a saved plan: the
 * list again, and the audiences it updates whose date did not move, read again; one whose read
 * answers the service's 404 is gone since the list, so the list it gives is without it (the
 * plan is stale, as for one gone before the list).
 */
export const audienceSource: KindOperations<'audience'> = {
  kind: 'audience',
  read: async (desired, { reader, signal, base }) => readAudiences(base ? [desired, base] : [desired], reader, signal),
  readCurrent: async (plan, { reader, list }) => {
    const listed = await list();
    const ids = rereadIds(plan, listed);
    const gone = new Set<Long>();
    const reads = await startInTurns(ids, async (id) => {
      try {
        return await reader.read(id);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        gone.add(id);
        return undefined;
      }
    });
    const reread = ids.flatMap((id, index) => {
      const read = reads[index];
      return read === undefined ? [] : [[String(id), read] as const];
    });
    return { audiences: listed.filter((summary) => !gone.has(summary.id)), reread: Object.fromEntries(reread) };
  },
};

/**
 * The list, then the reads the plans of `states` need (the file's, and its base's: see
 * PlanBase), each once, concurrently (the transport bounds how many are in
 * flight). An answer in a shape the plan cannot use makes only its own audience unreadable. An
 * audience whose read or ad groups answer the service's 404 was deleted since the list: a
 * second list confirms it (see confirmGone). Once another kind's read failed (`signal`), no more
 * requests start.
 */
async function readAudiences(
  states: DesiredState[],
  reader: AccountReader,
  signal: AbortSignal | undefined,
): Promise<Partial<LiveState>> {
  const listed = await reader.list();
  signal?.throwIfAborted();
  const needed = neededReadsOfAll(states, listed);
  const notFound = new Set<Long>();
  const links = linkReader(reader, notFound);
  needed.linkIds.forEach(links.start);
  const unreadable: Record<string, string> = {};
  const reads = await startInTurns(needed.detailIds, async (id) => {
    signal?.throwIfAborted();
    try {
      const detail = await reader.read(id);
      if (needed.needsLinks(id, detail)) links.start(id);
      return detail;
    } catch (error) {
      if (isNotFound(error)) {
        notFound.add(id);
        return undefined;
      }
      if (!isApiError(error) || error.kind !== 'invalid-response') throw error;
      unreadable[String(id)] = error.summary;
      return undefined;
    }
  }).catch((error: unknown) => {
    links.stop();
    throw error;
  });
  const linksRead = await links.all();
  const gone = notFound.size === 0 ? [] : await confirmGone(listed, notFound, reader);
  const goneIds = new Set(gone.map((summary) => summary.id));
  for (const id of notFound) {
    if (!goneIds.has(id))
      unreadable[String(id)] = 'the service answered 404 (not found) for it, yet the account still lists it';
  }
  const kept = (id: Long) => !goneIds.has(id) && unreadable[String(id)] === undefined;
  const details = Object.fromEntries(
    needed.detailIds.flatMap((id, index) => (reads[index] && kept(id) ? [[String(id), reads[index]]] : [])),
  );
  return {
    // The list itself when nothing is gone: the plan then matches it once (see matchIdentities).
    audiences: goneIds.size === 0 ? listed : listed.filter((summary) => !goneIds.has(summary.id)),
    details,
    links: Object.fromEntries(Object.entries(linksRead).filter(([id]) => kept(id))),
    ...(Object.keys(unreadable).length > 0 ? { unreadable } : {}),
    ...(gone.length > 0 ? { gone } : {}),
  };
}

/**
 * The audiences of `notFound` (their read or ad groups answered the service's 404) that a
 * second list no longer has: deleted after the first list (by someone else, while the plan or
 * an import read), so the plan treats them as not there, and says so, and an import leaves them out. One the second
 * list still has is not taken for gone: a 404 the account contradicts must not plan a create of an audience that
 * exists.
 */
export async function confirmGone(
  listed: LiveAudienceSummary[],
  notFound: ReadonlySet<Long>,
  reader: Pick<AccountReader, 'list'>,
): Promise<LiveAudienceSummary[]> {
  const still = new Set((await reader.list()).map((summary) => summary.id));
  return listed.filter((summary) => notFound.has(summary.id) && !still.has(summary.id));
}

/**
 * The seam of one performance choice: an audience about to change needs its ad groups, and
 * they are read as soon as its own read shows the change, while the other reads are still in
 * flight, not in a second round after all of them. The benchmark's bound counts the reads and
 * the ad-group reads as one stage, and holds "plan, 10% changed" to the ratio of "plan, no
 * changes" (bench/NOTES.md). Once the plan has failed, no more link reads start.
 * An audience whose ad groups answer the service's 404 is added to `notFound` (see confirmGone).
 */
function linkReader(reader: AccountReader, notFound: Set<Long>) {
  const links: Record<string, AdGroupLink[]> = {};
  const reads: Array<Promise<void>> = [];
  let stopped = false;
  return {
    start: (id: Long): void => {
      if (stopped) return;
      const read = reader.adGroups(id).then(
        (adGroups) => {
          links[String(id)] = adGroups;
        },
        (error: unknown) => {
          if (!isNotFound(error)) throw error;
          notFound.add(id);
        },
      );
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
