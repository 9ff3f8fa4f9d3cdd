import { isApiError } from '../../api/api-error.js';
import type { AudienceClient, BatchAnswer } from '../../api/audiences.js';
import { sameJsonText } from '../../api/long-json.js';
import { startInTurns } from '../../api/in-turns.js';
import { compareLongs, type AudienceDefinition, type LiveAudience, type Long } from '../../model/index.js';
import {
  diffDefinition,
  knownAudienceIds,
  type AudienceCreate,
  type AudienceDelete,
  type AudienceUpdate,
  type Change,
  type ChangeResult,
} from '../../plan/index.js';
import type { ApplyKind } from '../kind.js';
import { attempt, causeOf, done, identify, notStarted, unmade } from '../results.js';
import { quoted } from '../../model/index.js';

/** The batch delete takes ids in the query string; keep each request's URL short. */
const DELETE_BATCH_SIZE = 100;

function isWrite(change: Change): change is AudienceCreate | AudienceUpdate {
  return change.action === 'create' || change.action === 'update';
}

function isCreate(change: Change): change is AudienceCreate {
  return change.action === 'create';
}

function isDelete(change: Change): change is AudienceDelete {
  return change.action === 'delete';
}

/**
 * Audiences: creates and updates run concurrently (the transport bounds how many are in
 * flight), a create that raced another apply's is settled (see settleRaces), then deletes go
 * through the batch delete, except those whose ad groups could not all be released. The
 * service answers a write with the audience as it stored it; the answer is compared with what
 * was sent as it arrives (`differing`), so verifying needs no reads.
 */
export const audienceKind: ApplyKind<'audience'> = {
  kind: 'audience',
  apply: async (changes, context) => {
    const results = new Map<Change, ChangeResult>();
    const finish = (change: Change, result: ChangeResult): void => {
      results.set(change, result);
      context.finished(change, result);
    };
    const existing = knownAudienceIds(context.plan);
    const candidates = new Map<Change, Long[]>();
    await startInTurns(changes.filter(isWrite), async (change) => {
      if (context.signal.aborted) return finish(change, notStarted(change));
      context.started(change);
      const written = await write(change, context.audiences, existing);
      if (written.candidates.length > 0) candidates.set(change, written.candidates);
      finish(change, written.result);
    });
    const creates = changes.filter(isCreate);
    context.followingUp(creates, true);
    const races = await settleRaces(creates, results, candidates, context.audiences, existing);
    for (const [change, result] of races.settled) finish(change, result);
    context.followingUp(creates, false);

    const blocked = blockedDeletes(context.earlier);
    const deletes = changes.filter(isDelete);
    // The list that settled the races shows the account as this apply leaves it, unless a delete follows.
    if (context.listed)
      context.listed.ids = races.wrote || deletes.some((change) => !blocked.has(change.id)) ? undefined : races.ids;
    for (const change of deletes.filter((candidate) => blocked.has(candidate.id))) {
      finish(change, { ...identify(change), status: 'skipped', cause: blocked.get(change.id) });
    }
    const deletable = deletes.filter((change) => !blocked.has(change.id));
    for (let start = 0; start < deletable.length; start += DELETE_BATCH_SIZE) {
      const batch = deletable.slice(start, start + DELETE_BATCH_SIZE);
      if (context.signal.aborted) {
        for (const change of batch) finish(change, notStarted(change));
        continue;
      }
      for (const change of batch) context.started(change);
      (await deleteBatch(batch, context.audiences)).forEach((result, index) =>
        finish(batch[index] as AudienceDelete, result),
      );
    }
    return results;
  },
  verify: async (done, { audiences, present }) => {
    const ids = await present();
    const checks = done.map(async ({ change, result }): Promise<string[]> => {
      if (change.action === 'delete')
        return ids.has(change.id)
          ? [`audience ${quoted(change.name)} (id ${change.id}) still exists after its delete`]
          : [];
      if (!isWrite(change)) return [];
      const id = result.id;
      if (id === null || !ids.has(id)) return [`audience ${quoted(change.name)} is missing after its ${change.action}`];
      const fields = result.differing ?? writtenDiffering(change, await audiences.read(id));
      return fields.map((field) => `audience ${quoted(change.name)} (id ${id}): ${field} still differs`);
    });
    return (await Promise.all(checks)).flat();
  },
};

/**
 * Another apply (a pipeline and a person, two merges in quick succession) may create the same
 * audience at the same time: the service then holds two of that name, and every later plan
 * would stop at DUPLICATE_LIVE_NAME. After its creates, an apply lists the account once; for
 * each name it created that another audience made after its plan also holds with the same
 * definition, the lowest id stays: the apply whose audience has a higher id deletes its own
 * (just made: unlinked and unused) and adopts the lowest, saying so. Every apply decides alike,
 * so one stays. A create whose answer was lost and that found several audiences of its name
 * (see Created.candidates) does not know which one it made: it keeps the lowest and deletes
 * the others of the same definition, whoever made them (their own apply deletes them too, or
 * already has). A rival with another definition is no race (someone made an audience of that
 * name by hand): both stay, and the change says so. These requests finish what was sent, so
 * they go out even after an interrupt. Returns the results that change (each is reported
 * again, with what happened as its cause), and what the list found (see SettledRaces).
 */
async function settleRaces(
  creates: AudienceCreate[],
  results: ReadonlyMap<Change, ChangeResult>,
  candidates: ReadonlyMap<Change, Long[]>,
  client: AudienceClient,
  existing: ReadonlySet<Long>,
): Promise<SettledRaces> {
  const made = creates.flatMap((change) => {
    const result = results.get(change);
    return result?.status === 'ok' && result.id !== null ? [{ change, result, id: result.id }] : [];
  });
  const settled = new Map<Change, ChangeResult>();
  if (made.length === 0) return { settled, ids: undefined, wrote: false };
  let listed: Array<{ id: Long; name: string }>;
  try {
    listed = await client.list({ continuation: true });
  } catch {
    // Without the list nothing can be told apart: each create stands as made (verifying lists again).
    return { settled, ids: undefined, wrote: false };
  }
  // The ids of each name this apply did not find at its plan, lowest first: one pass, not one per create.
  const newIdsByName = new Map<string, Long[]>();
  for (const summary of [...listed].sort((a, b) => compareLongs(a.id, b.id))) {
    if (existing.has(summary.id)) continue;
    const ids = newIdsByName.get(summary.name);
    if (ids === undefined) newIdsByName.set(summary.name, [summary.id]);
    else ids.push(summary.id);
  }
  let wrote = false;
  for (const { change, result, id } of made) {
    const named = newIdsByName.get(change.name) ?? [];
    const mine = candidates.get(change);
    const race =
      mine === undefined
        ? await settleRace(change, result, id, named, client)
        : await settleUnknownOwner(change, result, mine, named, client);
    if (race === undefined) continue;
    wrote ||= race.deleted;
    settled.set(change, race.result);
  }
  return { settled, ids: new Set(listed.map((summary) => summary.id)), wrote };
}

/**
 * What settling the races came to: the results that change, the ids the list found, and whether a duplicate was deleted
 * since.
 */
interface SettledRaces {
  settled: Map<Change, ChangeResult>;
  ids: ReadonlySet<Long> | undefined;
  wrote: boolean;
}

/** A raced create's new result, and whether it deleted anything (the list no longer shows the account). */
type Race = { result: ChangeResult; deleted: boolean } | undefined;

/**
 * The lowest of `ids` (lowest first) with the definition `change` sends, read one by one: the
 * audience that stays. `same` is an id known to hold it without a read (the one the create
 * made); the search stops there. Also the first id found with another definition, or the error
 * that kept an audience from being read (then nothing can be told).
 */
async function lowestAlike(
  change: AudienceCreate,
  ids: readonly Long[],
  client: AudienceClient,
  same?: Long,
): Promise<{ kept?: Long; other?: Long; unreadable?: { id: Long; error: unknown } }> {
  let other: Long | undefined;
  for (const id of ids) {
    if (id === same) return { kept: id, other };
    try {
      if (differingFields(change.after, await client.read(id, { continuation: true })).length === 0)
        return { kept: id, other };
      other ??= id;
    } catch (error) {
      return { other, unreadable: { id, error } };
    }
  }
  return { kept: same, other };
}

/**
 * One create answered with its audience (`id`): when an audience of its name and definition
 * with a lower id was made since the plan (`named`, lowest first), this one is deleted and that
 * one adopted. Undefined when nothing changes and nothing is to be said.
 */
async function settleRace(
  change: AudienceCreate,
  result: ChangeResult,
  id: Long,
  named: readonly Long[],
  client: AudienceClient,
): Promise<Race> {
  const lower = named.filter((other) => compareLongs(other, id) < 0);
  if (lower.length === 0) return undefined;
  const duplicate = (other: Long) =>
    `the next plan stops at DUPLICATE_LIVE_NAME until one of ids ${other} and ${id} is pinned or deleted`;
  const { kept, other, unreadable } = await lowestAlike(change, [...lower, id], client, id);
  if (unreadable !== undefined) {
    const cause = `another audience named ${quoted(change.name)} appeared meanwhile (id ${unreadable.id}), and it could not be read (${causeOf(unreadable.error)}): both are kept; ${duplicate(unreadable.id)}`;
    return { result: { ...result, cause }, deleted: false };
  }
  if (kept === id) {
    const rival = other as Long;
    return {
      result: {
        ...result,
        cause: `another audience named ${quoted(change.name)} appeared meanwhile (id ${rival}) with another definition: both are kept; ${duplicate(rival)}`,
      },
      deleted: false,
    };
  }
  const race = `another apply created ${quoted(change.name)} at the same time (id ${String(kept)}), and the lowest id stays`;
  const failure = await deleteDuplicates([id], client);
  if (failure !== undefined)
    return {
      result: {
        ...result,
        cause: `${race}, but deleting the duplicate this apply made (id ${id}) failed (${failure}): ${duplicate(kept as Long)}`,
      },
      deleted: true,
    };
  return {
    result: {
      ...result,
      id: kept as Long,
      differing: undefined,
      cause: `adopted: ${race}; the duplicate this apply made (id ${id}) was deleted`,
    },
    deleted: true,
  };
}

/**
 * One create whose answer was lost and that found several audiences of its name made since
 * the plan (`mine`, lowest first), one of which it may have made: the lowest of the name with
 * its definition stays and is adopted, and the others of `mine` with that definition are
 * deleted, whoever made them. One that could not be read is left, and so is one with another
 * definition (someone's own): the change then says the next plan will stop at the name.
 */
async function settleUnknownOwner(
  change: AudienceCreate,
  result: ChangeResult,
  mine: readonly Long[],
  named: readonly Long[],
  client: AudienceClient,
): Promise<Race> {
  const listed = `the account held ${mine.length} audiences named ${quoted(change.name)} made since the plan (ids ${mine.join(', ')}), and which one this create made is unknown`;
  const left =
    'the next plan stops at DUPLICATE_LIVE_NAME until one of them is pinned in the file or the others are deleted';
  const { kept, other, unreadable } = await lowestAlike(change, named, client);
  if (unreadable !== undefined)
    return {
      result: {
        ...result,
        cause: `${listed}; audience ${unreadable.id} could not be read (${causeOf(unreadable.error)}), so none was deleted: ${left}`,
      },
      deleted: false,
    };
  if (kept === undefined)
    return {
      result: { ...result, cause: `${listed}; none of them holds its definition any longer: ${left}` },
      deleted: false,
    };
  const duplicates: Long[] = [];
  const others = other === undefined ? [] : [other];
  const problems: string[] = [];
  for (const id of mine.filter((candidate) => compareLongs(candidate, kept) > 0 && named.includes(candidate))) {
    const read = await lowestAlike(change, [id], client);
    if (read.kept !== undefined) duplicates.push(id);
    else if (read.unreadable !== undefined)
      problems.push(`audience ${id} could not be read (${causeOf(read.unreadable.error)}), so it was not deleted`);
    else others.push(id);
  }
  if (others.length > 0)
    problems.push(
      `${others.length === 1 ? `audience ${others[0]} holds` : `audiences ${others.join(', ')} hold`} another definition, so ${others.length === 1 ? 'it is' : 'they are'} kept`,
    );
  let deleted = '';
  if (duplicates.length > 0) {
    const which = `the duplicate${duplicates.length === 1 ? '' : 's'} (id${duplicates.length === 1 ? '' : 's'} ${duplicates.join(', ')})`;
    const failure = await deleteDuplicates(duplicates, client);
    if (failure === undefined) deleted = `; ${which} ${duplicates.length === 1 ? 'was' : 'were'} deleted`;
    else problems.unshift(`deleting ${which} failed (${failure})`);
  }
  const stays = `${listed}: the lowest id with its definition stays (id ${kept})${deleted}`;
  const cause = problems.length === 0 ? `adopted: ${stays}` : `${stays}; but ${problems.join('; ')}: ${left}`;
  return {
    result: { ...result, id: kept, differing: kept === result.id ? result.differing : undefined, cause },
    deleted: duplicates.length > 0,
  };
}

/**
 * Deletes duplicates just made by racing creates. Another apply may delete the same one at
 * the same time (its own, or one it could not tell from its own), so "not found" means gone.
 * Returns why one could not be deleted, or undefined when all are gone.
 */
async function deleteDuplicates(ids: readonly Long[], client: AudienceClient): Promise<string | undefined> {
  for (const id of ids) {
    try {
      await client.delete(id, { continuation: true });
    } catch (error) {
      if (!(isApiError(error) && error.kind === 'http' && error.status === 404)) return causeOf(error);
    }
  }
  return undefined;
}

/**
 * A create or an update, with the fields the service's answer holds otherwise than sent (left
 * to verifying when a create found after a lost answer could not be read back).
 */
async function write(
  change: AudienceCreate | AudienceUpdate,
  client: AudienceClient,
  existing: ReadonlySet<Long>,
): Promise<{ result: ChangeResult; candidates: Long[] }> {
  try {
    const written =
      change.action === 'create'
        ? await client.create(change.after, existing)
        : {
            ...(await client.update(change.id, change.after, { before: change.before, unmodelled: change.kept })),
            id: change.id,
            candidates: [],
          };
    const differing = written.audience === null ? {} : { differing: writtenDiffering(change, written.audience) };
    return {
      result: { ...done(change, written.verified), id: written.id, ...differing },
      candidates: written.candidates,
    };
  } catch (error) {
    return { result: unmade(change, error), candidates: [] };
  }
}

/**
 * The audiences whose deletes must wait, and why: an unlink of theirs failed (or may not have been made), so an ad
 * group may still use them.
 */
function blockedDeletes(earlier: readonly ChangeResult[]): Map<Long, string> {
  const blocked = new Map<Long, string>();
  for (const result of earlier) {
    if (result.action !== 'unlink' || result.id === null) continue;
    if (result.status === 'failed')
      blocked.set(result.id, `unlinking ad group ${result.adGroupId} failed, so the audience is still in use`);
    if (result.status === 'unknown')
      blocked.set(
        result.id,
        `whether ad group ${result.adGroupId} was unlinked is unknown, so the audience may still be in use`,
      );
  }
  return blocked;
}

/**
 * What the audience the service holds after a write has otherwise than the write meant: the
 * definition sent, and for an update each field it kept as read (a service that drops one it
 * was sent back would lose it in silence).
 */
function writtenDiffering(change: AudienceCreate | AudienceUpdate, live: LiveAudience): string[] {
  const fields = differingFields(change.after, live);
  if (change.action === 'create') return fields;
  return [
    ...fields,
    ...Object.keys(change.kept).filter((field) => !sameJsonText(change.kept[field], live.unmodelled[field])),
  ];
}

/** The fields of `sent` that the audience the service holds does not have as sent. */
function differingFields(sent: AudienceDefinition, live: LiveAudience): string[] {
  return diffDefinition(sent, live.definition).map((field) => field.field);
}

/**
 * Several deletes in one request. The service answers 200 with counts and messages; each
 * message that names an id marks that delete failed. When the messages do not say which
 * failed, the account is listed again: an audience still there was not deleted. A delete whose
 * batch answer was lost is done when the list that settled it found the audience gone, or when
 * it was sent again and deleted; either way it says so (`verified`).
 */
async function deleteBatch(changes: AudienceDelete[], client: AudienceClient): Promise<ChangeResult[]> {
  const [only] = changes;
  if (changes.length === 1 && only) return [await attempt(only, () => client.delete(only.id))];
  const { deletedUnanswered, lostAnswer, sent, answer } = await client.deleteMany(changes.map((change) => change.id));
  const listed = `the batch delete's answer was lost (${lostAnswer ?? ''}); the account was listed and the audience`;
  const sentLast = changes.filter((change) => sent.includes(change.id));
  const answered =
    'error' in answer
      ? sentLast.map((change) => unmade(change, answer.error))
      : await answeredDeletes(sentLast, answer, client);
  const results = new Map(sentLast.map((change, index) => [change, answered[index] as ChangeResult]));
  return changes.map((change) => {
    const result = results.get(change);
    if (result === undefined)
      return deletedUnanswered.includes(change.id)
        ? done(change, `${listed} was gone`)
        : { ...identify(change), status: 'unknown', cause: 'the batch delete gave no account of it' };
    return result.status === 'ok' && lostAnswer !== null
      ? { ...result, verified: `${listed} was still there, so it was sent again and deleted` }
      : result;
  });
}

/** The deletes of a batch the service answered: failed where a message names them or the account still holds them. */
async function answeredDeletes(
  changes: AudienceDelete[],
  answer: BatchAnswer,
  client: AudienceClient,
): Promise<ChangeResult[]> {
  if (answer.failCount === 0) return changes.map((change) => done(change, null));
  const messages = answer.errorMessages;
  const ids = new Set(changes.map((change) => change.id));
  const named = new Map<Long, string>();
  for (const message of messages) {
    const id = audienceIdOf(message, ids);
    if (id !== undefined && !named.has(id)) named.set(id, message);
  }
  const failed = (change: AudienceDelete, cause: string): ChangeResult => ({
    ...identify(change),
    status: 'failed',
    cause,
  });
  if (named.size >= answer.failCount)
    return changes.map((change) =>
      named.has(change.id) ? failed(change, named.get(change.id) as string) : done(change, null),
    );
  let remaining: Set<Long>;
  try {
    remaining = new Set((await client.list({ continuation: true })).map((summary) => summary.id));
  } catch (error) {
    // The named ones were refused; of the others, some were deleted and some not, and which cannot be told.
    const cause = `the batch delete reported ${answer.failCount} failures (${fewMessages(messages)}), not all of them named, and the account could not be read again to tell which: ${causeOf(error)}`;
    return changes.map((change) =>
      named.has(change.id)
        ? failed(change, named.get(change.id) as string)
        : { ...identify(change), status: 'unknown', cause },
    );
  }
  return changes.map((change) =>
    remaining.has(change.id)
      ? failed(change, named.get(change.id) ?? (fewMessages(messages) || 'the batch delete did not delete it'))
      : done(change, null),
  );
}

/** A batch's messages on one change's line: the first few, and how many more there were. */
function fewMessages(messages: string[]): string {
  const shown = messages.slice(0, 3).join('; ');
  return messages.length > 3 ? `${shown}; and ${messages.length - 3} more` : shown;
}

/**
 * The audience a batch-delete message is about. The service names it first ("audience 123: in
 * use by ad groups 101, 102"); the ad groups named after it are another kind of id and may
 * well equal the id of another audience of the batch, so only the first id of the batch counts.
 */
function audienceIdOf(message: string, ids: ReadonlySet<Long>): Long | undefined {
  for (const [digits] of message.matchAll(/\d+/g)) if (ids.has(digits)) return digits;
  return undefined;
}
