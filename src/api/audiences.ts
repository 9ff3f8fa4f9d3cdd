import type { AdGroupLink, AudienceDefinition, LiveAudience, LiveAudienceSummary } from '../model/index.js';
import { isNotStarted } from '../errors.js';
import { isApiError, type ApiError } from './api-error.js';
import { adGroupLinkFromWire, audienceFromWire, audienceSummaryFromWire, audienceToWire } from './audience-wire.js';
import type { HttpClient } from './http.js';

/** What a batch delete did: the service answers 200 even when some deletions fail. */
export interface DeleteManyResult {
  successCount: number;
  failCount: number;
  /** One per failure, each naming the audience id first ("audience 999: not found"). */
  errorMessages: string[];
}

/** The eight audience operations for one ad account, in the model's terms. */
export interface AudienceClient {
  readonly adAccountId: number;
  /** `continuation`: part of a change already sent, so sent even after an interrupt (see HttpRequest.continuation). */
  list(options?: { continuation?: boolean }): Promise<LiveAudienceSummary[]>;
  read(id: number, options?: { continuation?: boolean }): Promise<LiveAudience>;
  /**
   * Creates an audience. `existing` are ids that were there before (the account as planned):
   * when the outcome is unknown, an audience of the name is taken as the one made only when it
   * is none of them.
   */
  create(definition: AudienceDefinition, existing?: ReadonlySet<number>): Promise<LiveAudience>;
  update(id: number, definition: AudienceDefinition): Promise<LiveAudience>;
  delete(id: number, options?: { continuation?: boolean }): Promise<void>;
  /** One batch delete: the service answers 200 even when some fail, so the outcome is data. */
  deleteMany(ids: number[]): Promise<DeleteManyResult>;
  adGroups(id: number): Promise<AdGroupLink[]>;
  unlink(id: number, adGroupId: number): Promise<void>;
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

export function createAudienceClient(http: HttpClient, adAccountId: number): AudienceClient {
  const headers = { adAccountId: String(adAccountId) };

  /** The list that settles an unknown outcome: part of the change already sent, so sent even after an interrupt. */
  const listOrUnknown = (unknown: ApiError): Promise<LiveAudienceSummary[]> => client.list({ continuation: true }).catch((error: unknown) => Promise.reject(stillUnknown(error, unknown)));
  const client: AudienceClient = {
    adAccountId,
    list: async (options = {}) => {
      const body = await http.request({ method: 'GET', path: `${BASE}/audiences`, headers, response: 'AudienceListResponse', ...options });
      return (body.content ?? []).map(audienceSummaryFromWire);
    },
    read: async (id, options = {}) => {
      const body = await http.request({ method: 'GET', path: `${BASE}/${id}`, headers, response: 'AudienceDetail', ...options });
      return audienceFromWire(body);
    },
    create: async (definition, existing = new Set()) => {
      // A create is never repeated blindly: when its outcome is unknown (a timeout, a reset
      // or a 5xx after it was sent), the account is listed and an audience of that name that
      // appeared (none of the `existing` ones) is the one this create made.
      let unknown: ApiError | undefined;
      for (let attempt = 1; ; attempt += 1) {
        try {
          const body = await http.request({ method: 'POST', path: BASE, headers, body: audienceToWire(adAccountId, definition), response: 'AudienceWriteResponse' });
          return audienceFromWire(body);
        } catch (error) {
          if (!isApiError(error) || !error.ambiguous || attempt >= RECONCILE_ATTEMPTS) throw stillUnknown(error, unknown);
          unknown = error;
          const made = (await listOrUnknown(unknown)).filter((summary) => summary.name === definition.name && !existing.has(summary.id));
          if (made.length === 1 && made[0]) return client.read(made[0].id, { continuation: true });
          if (made.length > 1) throw error;
        }
      }
    },
    update: async (id, definition) => {
      const body = await http.request({ method: 'PUT', path: BASE, headers, body: audienceToWire(adAccountId, definition, id), response: 'AudienceWriteResponse' });
      return audienceFromWire(body);
    },
    delete: async (id, options = {}) => {
      try {
        await http.request({ method: 'DELETE', path: `${BASE}/${id}`, headers, ...options });
      } catch (error) {
        if (!isRetriedNotFound(error)) throw error;
      }
    },
    deleteMany: async (ids) => {
      // Not retried blindly either: a repeat after a lost answer would report the audiences
      // the first attempt deleted as "not found". When the outcome is unknown, the account is
      // listed: what is gone was deleted, what is left is sent again.
      let pending = [...new Set(ids)];
      let deleted = 0;
      let unknown: ApiError | undefined;
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        try {
          const body = await http.request({ method: 'DELETE', path: BASE, query: { audienceIds: pending.join(',') }, headers, idempotent: false, response: 'BatchDeleteResult' });
          return { successCount: deleted + body.successCount, failCount: body.failCount, errorMessages: body.errorMessages ?? [] };
        } catch (error) {
          if (!isApiError(error) || !error.ambiguous || attempt >= RECONCILE_ATTEMPTS) throw stillUnknown(error, unknown);
          unknown = error;
          const present = new Set((await listOrUnknown(unknown)).map((summary) => summary.id));
          deleted += pending.filter((id) => !present.has(id)).length;
          pending = pending.filter((id) => present.has(id));
        }
      }
      return { successCount: deleted, failCount: 0, errorMessages: [] };
    },
    adGroups: async (id) => {
      const body = await http.request({ method: 'GET', path: `${BASE}/${id}/adGroups`, headers, response: 'AudienceAdGroupListResponse' });
      return (body.content ?? []).map(adGroupLinkFromWire);
    },
    unlink: async (id, adGroupId) => {
      try {
        await http.request({ method: 'PUT', path: `${BASE}/${id}/unlink`, query: { adGroupId }, headers });
      } catch (error) {
        if (!isRetriedNotFound(error)) throw error;
      }
    },
  };
  return client;
}

/**
 * After a request whose outcome is unknown (`unknown`), a request an interrupt kept from
 * being sent (NOT_STARTED) settles nothing: the unknown outcome is what stands.
 */
function stillUnknown(error: unknown, unknown: ApiError | undefined): unknown {
  return unknown !== undefined && isNotStarted(error) ? unknown : error;
}
