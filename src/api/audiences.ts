import {
  compareLongs,
  type AdGroupLink,
  type AudienceDefinition,
  type LiveAudience,
  type LiveAudienceSummary,
  type Long,
} from '../model/index.js';
import { AppError, isAppError, isNotStarted, NOT_STARTED, OUTCOME_UNKNOWN } from '../errors.js';
import { hasServiceErrorBody, isApiError } from './api-error.js';
import {
  adGroupLinkFromWire,
  audienceFromWire,
  audienceSummaryFromWire,
  audienceToWire,
  longFromWire,
  type Keep,
} from './audience-wire.js';
import type { AttemptEnd } from './exchange.js';
import type { AudienceAdGroup, AudienceListItem, WireTypes } from './generated/wire.js';
import type { HttpClient } from './http.js';
import { quoted } from '../model/index.js';
import { readWholeList } from './whole-list.js';

/**
 * How a change's outcome is known when an answer was lost on the way (a broken or silent
 * connection, a 5xx after the service may have acted): what the client did to find out, in
 * words for the change's line ("the answer was lost (…); the account was listed and the
 * audience was found (id 123)"). Null when the answer came back the first time.
 */
export interface Outcome {
  verified: string | null;
  /** What else the service's answer said of a change done: an unlink of a link that was already gone. */
  note?: string;
}

/** A create's outcome: the audience made, as the service answered or as read back after a lost answer. */
export interface Created extends Outcome {
  id: Long;
  /** Null only when the list found the audience made but reading it back failed (the id stands; verifying reads it). */
  audience: LiveAudience | null;
  /**
   * When the answer was lost and the list found several audiences of the name made since the
   * plan (another apply's among them): all their ids, lowest first. Any of them may be the one
   * this create made; `id` is the lowest. Empty otherwise, when `id` is the audience it made.
   */
  candidates: Long[];
}

/** An update's outcome: the audience as the service answered. */
export interface Updated extends Outcome {
  audience: LiveAudience;
}

/** The service's answer to one batch delete: 200 even when some deletions fail. */
export interface BatchAnswer {
  successCount: number;
  failCount: number;
  /** One per failure, each naming the audience id first ("audience 999: not found"). */
  errorMessages: string[];
}

/**
 * What a batch delete did, as data, never an exception: an answer lost on the way is settled
 * by listing the account (what is gone was deleted by the attempt whose answer was lost, what
 * is left is sent again), and what became of the ids sent last is the service's answer or why
 * none came.
 */
export interface DeleteManyResult {
  /** Deleted by an attempt whose answer was lost: gone when the account was listed afterwards. */
  deletedUnanswered: Long[];
  /** The first answer lost on the way, in words ("the service answered 503"), or null when none was. */
  lostAnswer: string | null;
  /** The ids of the last batch sent (those still there after any lost answer; empty when none was left). */
  sent: Long[];
  /**
   * The service's answer to that batch, or the error that stands instead: refused (an
   * ApiError), not sent because of an interrupt (NOT_STARTED), or unknown (OUTCOME_UNKNOWN).
   */
  answer: BatchAnswer | { error: unknown };
}

/** The eight audience operations for one ad account, in the model's terms. */
export interface AudienceClient {
  readonly adAccountId: number;
  /**
   * The whole list, its pages followed; a list that cannot be read whole is an error, never a
   * part of it (see whole-list.ts). `continuation`: part of a change already sent, so sent even
   * after an interrupt (see HttpRequest.continuation).
   */
  list(options?: { continuation?: boolean }): Promise<LiveAudienceSummary[]>;
  read(id: Long, options?: { continuation?: boolean }): Promise<LiveAudience>;
  /**
   * Creates an audience. `existing` are ids that were there before (the account as planned):
   * when the outcome is unknown, an audience of the name is taken as the one made only when it
   * is none of them (when several are, see Created.candidates). Throws OUTCOME_UNKNOWN when a
   * lost answer cannot be settled.
   */
  create(definition: AudienceDefinition, existing?: ReadonlySet<Long>): Promise<Created>;
  /**
   * Replaces the audience's definition with `definition`, keeping what the tool does not model
   * as `keep` read it (see Keep; without it, nothing is kept). Throws OUTCOME_UNKNOWN when it
   * fails after an answer was lost (the update may have been made).
   */
  update(id: Long, definition: AudienceDefinition, keep?: Keep): Promise<Updated>;
  /** Throws OUTCOME_UNKNOWN when it fails after an answer was lost. */
  delete(id: Long, options?: { continuation?: boolean }): Promise<Outcome>;
  /** One batch delete: the service answers 200 even when some fail, so the outcome is data. */
  deleteMany(ids: Long[]): Promise<DeleteManyResult>;
  /** The whole list of the ad groups that use the audience, read as `list` reads the audiences. */
  adGroups(id: Long, options?: { continuation?: boolean }): Promise<AdGroupLink[]>;
  /**
   * Throws OUTCOME_UNKNOWN when it fails after an answer was lost. A 404 whose ad group the
   * audience's ad groups, listed then, do not hold is done: the link was already gone (`note`).
   */
  unlink(id: Long, adGroupId: Long): Promise<Outcome>;
}

const BASE = '/openapi/v4/targetings';

/**
 * How often a create or batch delete whose outcome was unknown is reconciled and sent again.
 * Each round first proves (by listing) that the earlier one did nothing, so sending again is
 * as safe as a retry of a request that never left; the bound only stops a service that fails
 * every time.
 */
const RECONCILE_ATTEMPTS = 10;

/**
 * A retried DELETE or unlink whose earlier attempt went through (its answer lost to a reset or
 * a 5xx after the work was done) finds nothing left to act on: the 404 then means done. On a
 * first attempt a 404 stays an error, so a wrong id is still reported.
 */
function isRetriedNotFound(error: unknown): boolean {
  return isApiError(error) && error.kind === 'http' && error.status === 404 && error.attempts > 1;
}

/**
 * The service's own 404 (with its error body, not a wrong address's): what it names is not
 * there. Of a read or an ad-group list, the audience is gone (deleted since it was listed).
 */
export function isNotFound(error: unknown): boolean {
  return isApiError(error) && error.kind === 'http' && error.status === 404 && hasServiceErrorBody(error);
}

/**
 * Watches the attempts of one request that changes the account: the first answer lost on the
 * way (the service may have acted), and whether a failure of the request leaves its outcome
 * unsettled: an attempt may have acted without a usable answer (lost, or a 2xx whose body
 * could not be read), and none that followed said otherwise. A later quota answer or refusal
 * says nothing of what the lost attempt did, so any lost answer before a failure counts.
 */
function watchAnswers() {
  let lost: string | undefined;
  let last: AttemptEnd['kind'] | undefined;
  return {
    onAttempt: (end: AttemptEnd): void => {
      last = end.kind;
      if (end.kind === 'lost') lost ??= end.reason;
    },
    /** The first answer lost, in words, or undefined when none was. */
    get lost(): string | undefined {
      return lost;
    },
    /** An attempt may have acted, but no usable answer came of it (meaningful once the request failed). */
    get unsettled(): boolean {
      return lost !== undefined || last === 'answered';
    },
  };
}

/** The error of a change whose outcome stays unknown: what was lost and, when looking failed too, why. */
function outcomeUnknown(what: string, lost: unknown, looked?: { failed: unknown } | { found: string }): AppError {
  const because =
    looked === undefined
      ? ''
      : 'failed' in looked
        ? `; listing the account to find out failed too: ${summaryOf(looked.failed)}`
        : `; ${looked.found}`;
  return new AppError({
    code: OUTCOME_UNKNOWN,
    source: 'remote',
    summary: `the outcome is unknown: ${what} may have been carried out, but its answer was lost (${summaryOf(lost)})${because}`,
    hint: 'Run `audiences plan`: it shows whether the change was made, and `audiences apply` finishes the job.',
    cause: lost,
  });
}

/**
 * A request that an interrupt kept from being sent again, after looking showed that the lost attempt had done nothing.
 */
function notSentAgain(lost: string, found: string): AppError {
  return new AppError({
    code: NOT_STARTED,
    source: 'user',
    summary: 'not sent again: the command was interrupted',
    detail: `the answer was lost (${lost}); ${found}`,
  });
}

function summaryOf(error: unknown): string {
  return isAppError(error) ? error.summary : error instanceof Error ? error.message : String(error);
}

export function createAudienceClient(http: HttpClient, adAccountId: number): AudienceClient {
  const headers = { adAccountId: String(adAccountId) };

  const client: AudienceClient = {
    adAccountId,
    list: async (options = {}) => {
      const path = `${BASE}/audiences`;
      const items = await readWholeList<AudienceListItem>({
        shown: `GET ${path}`,
        what: 'audiences',
        idOf: (item) => longFromWire(item.id),
        nameOf: (listed) => `audience ${listed}`,
        ask: (query) =>
          http.request({
            method: 'GET',
            path,
            query: { ...query },
            headers,
            response: 'AudienceListResponse',
            ...options,
          }),
      });
      return items.map(audienceSummaryFromWire);
    },
    read: async (id, options = {}) => {
      const body = await http.request({
        method: 'GET',
        path: `${BASE}/${id}`,
        headers,
        response: 'AudienceDetail',
        ...options,
      });
      return audienceFromWire(body);
    },
    create: async (definition, existing = new Set()) => {
      // A create is never repeated blindly: when its outcome is unknown (a timeout, a reset
      // or a 5xx after it was sent), the account is listed and an audience of that name that
      // appeared (none of the `existing` ones) is the one this create made; when none did, it
      // is sent again. The list is part of the change already sent, so it goes out even after
      // an interrupt.
      let lost: string | undefined;
      const watch = watchAnswers();
      const audience = `the create of audience ${quoted(definition.name)}`;
      for (let attempt = 1; ; attempt += 1) {
        let body: WireTypes['AudienceWriteResponse'];
        try {
          body = await http.request({
            method: 'POST',
            path: BASE,
            headers,
            body: audienceToWire(adAccountId, definition),
            response: 'AudienceWriteResponse',
            onAttempt: watch.onAttempt,
          });
        } catch (error) {
          if (lost !== undefined && isNotStarted(error))
            throw notSentAgain(lost, 'the account was listed and the audience was not there');
          // Refused: after a lost answer too, the list showed that the lost attempt made nothing.
          if (!isApiError(error) || !error.ambiguous) throw error;
          if (attempt >= RECONCILE_ATTEMPTS)
            throw outcomeUnknown(audience, error, { found: `it was sent ${attempt} times and no answer came back` });
          // In the attempt's words ("the service answered 503"); a 2xx that could not be read is named by the error.
          lost ??= watch.lost ?? summaryOf(error);
          let listed: LiveAudienceSummary[];
          try {
            listed = await client.list({ continuation: true });
          } catch (listError) {
            throw outcomeUnknown(audience, error, { failed: listError });
          }
          const made = listed
            .filter((summary) => summary.name === definition.name && !existing.has(summary.id))
            .map((summary) => summary.id)
            .sort(compareLongs);
          if (made.length > 0) return readFound(made, lost);
          continue;
        }
        const verified =
          lost === undefined
            ? null
            : `the answer was lost (${lost}); the account was listed and the audience was not there, so it was sent again and made`;
        const made = audienceFromWire(body);
        return { id: made.id, audience: made, verified, candidates: [] };
      }
    },
    update: async (id, definition, keep) => {
      const watch = watchAnswers();
      try {
        const body = await http.request({
          method: 'PUT',
          path: BASE,
          headers,
          body: audienceToWire(adAccountId, definition, { id, ...keep }),
          response: 'AudienceWriteResponse',
          onAttempt: watch.onAttempt,
        });
        return {
          audience: audienceFromWire(body),
          verified:
            watch.lost === undefined
              ? null
              : `the answer was lost (${watch.lost}); the update was sent again, as an update safely can be, and answered`,
        };
      } catch (error) {
        throw watch.unsettled ? outcomeUnknown(`the update of audience ${id}`, error) : error;
      }
    },
    delete: async (id, options = {}) => {
      const watch = watchAnswers();
      try {
        await http.request({
          method: 'DELETE',
          path: `${BASE}/${id}`,
          headers,
          ...options,
          onAttempt: watch.onAttempt,
        });
        return {
          verified:
            watch.lost === undefined
              ? null
              : `the answer was lost (${watch.lost}); the delete was sent again and answered`,
        };
      } catch (error) {
        if (isRetriedNotFound(error))
          return { verified: `${lostWords(watch.lost)}; sent again, the audience was already gone (404)` };
        throw watch.unsettled ? outcomeUnknown(`the delete of audience ${id}`, error) : error;
      }
    },
    deleteMany: async (ids) => {
      // Not retried blindly either: a repeat after a lost answer would report the audiences
      // the first attempt deleted as "not found". When the outcome is unknown, the account is
      // listed: what is gone was deleted, what is left is sent again.
      let pending = [...new Set(ids)];
      const deletedUnanswered: Long[] = [];
      let lostAnswer: string | null = null;
      const watch = watchAnswers();
      const ended = (answer: DeleteManyResult['answer']): DeleteManyResult => ({
        deletedUnanswered,
        lostAnswer,
        sent: pending,
        answer,
      });
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        const batch = `the batch delete of ${pending.length === 1 ? `audience ${String(pending[0])}` : `${pending.length} audiences`}`;
        try {
          const body = await http.request({
            method: 'DELETE',
            path: BASE,
            query: { audienceIds: pending.join(',') },
            headers,
            idempotent: false,
            response: 'BatchDeleteResult',
            onAttempt: watch.onAttempt,
          });
          return ended({
            successCount: body.successCount,
            failCount: body.failCount,
            errorMessages: body.errorMessages ?? [],
          });
        } catch (error) {
          if (lostAnswer !== null && isNotStarted(error))
            return ended({
              error: notSentAgain(lostAnswer, 'the account was listed and the audience was still there'),
            });
          if (!isApiError(error) || !error.ambiguous) return ended({ error });
          if (attempt >= RECONCILE_ATTEMPTS)
            return ended({
              error: outcomeUnknown(batch, error, { found: `it was sent ${attempt} times and no answer came back` }),
            });
          lostAnswer ??= watch.lost ?? summaryOf(error);
          let present: Set<Long>;
          try {
            present = new Set((await client.list({ continuation: true })).map((summary) => summary.id));
          } catch (listError) {
            return ended({ error: outcomeUnknown(batch, error, { failed: listError }) });
          }
          deletedUnanswered.push(...pending.filter((id) => !present.has(id)));
          pending = pending.filter((id) => present.has(id));
        }
      }
      return ended({ successCount: 0, failCount: 0, errorMessages: [] });
    },
    adGroups: async (id, options = {}) => {
      const path = `${BASE}/${id}/adGroups`;
      const items = await readWholeList<AudienceAdGroup>({
        shown: `GET ${path}`,
        what: `ad groups of audience ${id}`,
        idOf: (item) => longFromWire(item.adGroupId),
        nameOf: (listed) => `ad group ${listed}`,
        ask: (query) =>
          http.request({
            method: 'GET',
            path,
            query: { ...query },
            headers,
            response: 'AudienceAdGroupListResponse',
            ...options,
          }),
      });
      return items.map(adGroupLinkFromWire);
    },
    unlink: async (id, adGroupId) => {
      const watch = watchAnswers();
      try {
        await http.request({
          method: 'PUT',
          path: `${BASE}/${id}/unlink`,
          query: { adGroupId },
          headers,
          onAttempt: watch.onAttempt,
        });
        return {
          verified:
            watch.lost === undefined
              ? null
              : `the answer was lost (${watch.lost}); the unlink was sent again and answered`,
        };
      } catch (error) {
        if (isRetriedNotFound(error))
          return { verified: `${lostWords(watch.lost)}; sent again, the ad group no longer used the audience (404)` };
        if (!watch.unsettled && isNotFound(error) && (await linkGone(id, adGroupId))) {
          const said = isApiError(error) && error.detailMsg !== undefined ? error.detailMsg : summaryOf(error);
          return {
            verified: null,
            note: `the link was already gone: the unlink answered 404 (${said}), and the audience's ad groups, listed then, do not hold ad group ${adGroupId}`,
          };
        }
        throw watch.unsettled
          ? outcomeUnknown(`the unlink of ad group ${adGroupId} from audience ${id}`, error)
          : error;
      }
    },
  };

  /**
   * The audience a create made, found by the list after its answer was lost (`made`: the ids of
   * its name made since the plan, lowest first): read back, or only its id when the read fails
   * too. When there are several, which one it made is unknown: the lowest is taken, and the
   * apply settles the others as a race (the lowest id stays).
   */
  async function readFound(made: Long[], lost: string): Promise<Created> {
    const id = made[0] as Long;
    const found =
      made.length === 1
        ? `the answer was lost (${lost}); the account was listed and the audience was found (id ${id})`
        : `the answer was lost (${lost}); the account was listed and held ${made.length} audiences of that name made since the plan (ids ${made.join(', ')}), so which one this create made is unknown: the lowest (id ${id}) is taken`;
    const candidates = made.length === 1 ? [] : made;
    try {
      return { id, audience: await client.read(id, { continuation: true }), verified: found, candidates };
    } catch (error) {
      return {
        id,
        audience: null,
        verified: `${found}, though reading it back failed (${summaryOf(error)})`,
        candidates,
      };
    }
  }

  /**
   * Whether the audience is there and ad group `adGroupId` does not use it, by its ad groups
   * listed now: a 404 of the unlink then says the work is done, whoever did it. The service's
   * 404 does not say which is missing, the link or the audience (whose unlink stays an error);
   * a list that fails or is not whole tells nothing. The list goes out after an interrupt, as
   * part of the unlink sent.
   */
  async function linkGone(id: Long, adGroupId: Long): Promise<boolean> {
    try {
      return !(await client.adGroups(id, { continuation: true })).some((link) => link.adGroupId === adGroupId);
    } catch {
      return false;
    }
  }

  return client;
}

/**
 * The answer lost before a retry that found the work done (or, when none was lost, that an attempt failed first: a
 * quota answer).
 */
function lostWords(lost: string | undefined): string {
  return lost === undefined ? 'an earlier attempt failed' : `the answer was lost (${lost})`;
}
