/**
 * Latency, injected faults, the per-account rate limit and the other settings a test may
 * change at run time (how quota answers, member ids and lists are answered, which audiences a
 * read finds deleted). Every random choice comes
 * from a seeded PRNG, so a given seed and request order always give the same fault sequence;
 * jitter has its own stream so changing the latency does not change which requests fail.
 */
import { memberIdSpellings, trackerShapes } from './audiences.js';
import type { MemberIdSpelling, TrackerShape } from './audiences.js';
import { quotaStatuses } from './http-error.js';
import type { QuotaStatus } from './http-error.js';
import { parseId, type Long } from './ids.js';
import { DEFAULT_PAGE_SIZE, listShapes, MAX_PAGE_SIZE, type ListShape } from './list-shapes.js';

export type FaultKind = '5xx' | '429' | 'reset';

/** What the rate limit counts: every request, or only writes (the real service's documented limits are on writes). */
export const rateLimitScopes = ['all', 'writes'] as const;
export type RateLimitScope = (typeof rateLimitScopes)[number];

export interface FaultSettings {
  latencyMs: number;
  jitterMs: number;
  faultRate: number;
  faultKinds: FaultKind[];
  /** The ad accounts whose requests the fault draw strikes (each its own quota, as the service's); empty: every request. */
  faultAccounts: number[];
  seed: number;
  retryAfterSeconds: number;
  /** Requests per second per ad account; 0 = unlimited. */
  rateLimitPerSecond: number;
  rateLimitScope: RateLimitScope;
  /** The status of a rate-limited or injected-429 answer: the real service uses both spellings. */
  quotaStatus: QuotaStatus;
  /** Whether that answer carries Retry-After (the real service does not always send it). */
  quotaRetryAfter: boolean;
  /** How answers spell the ids of targeting members (wire decision §2). */
  memberIds: MemberIdSpelling;
  /**
   * The shape of tracker members, taken and answered: `retentionDays`, or the real service's `terms` (wire decision
   * §14).
   */
  trackerShape: TrackerShape;
  /** How the list of audiences (operation 1) answers (list-shapes.ts). */
  audienceListShape: ListShape;
  /** How the lists of an audience's ad groups (operation 7) answer. */
  adGroupListShape: ListShape;
  /** The page size of a paged list when the request asks for none. */
  pageSize: number;
  /**
   * Audiences a read (operation 2) or an ad-group list (operation 7) finds deleted: the request
   * deletes the audience (and its links) first, then answers 404, as a delete made by someone
   * between a client's list and its read.
   */
  vanishOnRead: Long[];
}

/**
 * `before`: the request is answered with the fault and not performed. `after`: the request is
 * performed (a create really happened) and then the answer is replaced by the fault — the case
 * a client must handle without creating twice.
 */
export type FaultDecision =
  | { kind: 'none' }
  | { kind: '429' }
  | { kind: '5xx'; status: 500 | 503; when: 'before' | 'after' }
  | { kind: 'reset'; when: 'before' | 'after' };

export const defaultFaultSettings: FaultSettings = {
  latencyMs: 0,
  jitterMs: 0,
  faultRate: 0,
  faultKinds: ['5xx', '429', 'reset'],
  faultAccounts: [],
  seed: 1,
  retryAfterSeconds: 1,
  rateLimitPerSecond: 0,
  rateLimitScope: 'all',
  quotaStatus: 429,
  quotaRetryAfter: true,
  memberIds: 'catalog',
  trackerShape: 'retentionDays',
  audienceListShape: 'whole',
  adGroupListShape: 'whole',
  pageSize: DEFAULT_PAGE_SIZE,
  vanishOnRead: [],
};

/** mulberry32: small, fast and good enough to spread faults; the same seed gives the same stream. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Faults {
  readonly settings: FaultSettings;
  /** Replaces the given settings; a new seed (or any change of seed) restarts both streams. */
  update(patch: Partial<FaultSettings>): void;
  /** Back to the settings it was created with, as if new: both streams and the rate windows restart. */
  reset(): void;
  delayMs(): number;
  decide(): FaultDecision;
  /** Counts a request against `key`'s one-second window; returns the seconds to wait when over the limit. */
  admit(key: string, nowMs: number): number | undefined;
}

export function createFaults(initial: FaultSettings): Faults {
  const copy = (from: FaultSettings): FaultSettings => ({
    ...from,
    faultKinds: [...from.faultKinds],
    faultAccounts: [...from.faultAccounts],
    vanishOnRead: [...from.vanishOnRead],
  });
  let settings = copy(initial);
  let faultRandom = seededRandom(settings.seed);
  let jitterRandom = seededRandom(settings.seed ^ 0x5bd1e995);
  const windows = new Map<string, number[]>();
  const restartStreams = (): void => {
    faultRandom = seededRandom(settings.seed);
    jitterRandom = seededRandom(settings.seed ^ 0x5bd1e995);
  };
  return {
    get settings() {
      return settings;
    },
    update(patch) {
      settings = { ...settings, ...patch };
      if (patch.seed !== undefined) restartStreams();
      if (patch.rateLimitPerSecond !== undefined) windows.clear();
    },
    reset() {
      settings = copy(initial);
      restartStreams();
      windows.clear();
    },
    delayMs() {
      const jitter = settings.jitterMs > 0 ? jitterRandom() * settings.jitterMs : 0;
      return settings.latencyMs + jitter;
    },
    decide() {
      const roll = faultRandom();
      if (roll >= settings.faultRate || settings.faultKinds.length === 0) return { kind: 'none' };
      const kind = settings.faultKinds[Math.floor(faultRandom() * settings.faultKinds.length)] ?? '5xx';
      if (kind === '429') return { kind };
      const when = faultRandom() < 0.5 ? 'before' : 'after';
      if (kind === 'reset') return { kind, when };
      return { kind, when, status: faultRandom() < 0.5 ? 500 : 503 };
    },
    admit(key, nowMs) {
      if (settings.rateLimitPerSecond <= 0) return undefined;
      const recent = (windows.get(key) ?? []).filter((at) => nowMs - at < 1000);
      windows.set(key, recent);
      const oldest = recent[0];
      if (recent.length >= settings.rateLimitPerSecond && oldest !== undefined) {
        return Math.max(1, Math.ceil((oldest + 1000 - nowMs) / 1000));
      }
      recent.push(nowMs);
      return undefined;
    },
  };
}

/** Checks a PUT /_emulator/faults body; returns the patch or a message naming the bad field. */
export function parseFaultPatch(body: unknown): Partial<FaultSettings> | string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body must be a JSON object';
  const patch: Partial<FaultSettings> = {};
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'latencyMs':
      case 'jitterMs':
      case 'retryAfterSeconds':
      case 'rateLimitPerSecond':
      case 'seed':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
          return `${key} must be a non-negative integer`;
        patch[key] = value;
        break;
      case 'faultRate':
        if (typeof value !== 'number' || value < 0 || value > 1) return 'faultRate must be a number from 0 to 1';
        patch.faultRate = value;
        break;
      case 'faultKinds':
        if (!Array.isArray(value) || !value.every((kind) => kind === '5xx' || kind === '429' || kind === 'reset')) {
          return 'faultKinds must be an array of "5xx", "429", "reset"';
        }
        patch.faultKinds = value as FaultKind[];
        break;
      case 'faultAccounts':
        if (!Array.isArray(value) || !value.every((id) => Number.isSafeInteger(id) && (id as number) > 0))
          return 'faultAccounts must be an array of ad account ids (positive integers)';
        patch.faultAccounts = value as number[];
        break;
      case 'quotaStatus':
        if (!quotaStatuses.includes(value as QuotaStatus))
          return `quotaStatus must be one of ${quotaStatuses.join(', ')}`;
        patch.quotaStatus = value as QuotaStatus;
        break;
      case 'rateLimitScope':
        if (!rateLimitScopes.includes(value as RateLimitScope))
          return `rateLimitScope must be one of ${rateLimitScopes.map((v) => `"${v}"`).join(', ')}`;
        patch.rateLimitScope = value as RateLimitScope;
        break;
      case 'quotaRetryAfter':
        if (typeof value !== 'boolean') return 'quotaRetryAfter must be true or false';
        patch.quotaRetryAfter = value;
        break;
      case 'memberIds':
        if (!memberIdSpellings.includes(value as MemberIdSpelling))
          return `memberIds must be one of ${memberIdSpellings.map((v) => `"${v}"`).join(', ')}`;
        patch.memberIds = value as MemberIdSpelling;
        break;
      case 'trackerShape':
        if (!trackerShapes.includes(value as TrackerShape))
          return `trackerShape must be one of ${trackerShapes.map((v) => `"${v}"`).join(', ')}`;
        patch.trackerShape = value as TrackerShape;
        break;
      case 'audienceListShape':
      case 'adGroupListShape':
        if (!listShapes.includes(value as ListShape))
          return `${key} must be one of ${listShapes.map((v) => `"${v}"`).join(', ')}`;
        patch[key] = value as ListShape;
        break;
      case 'pageSize':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE)
          return `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`;
        patch.pageSize = value;
        break;
      case 'vanishOnRead': {
        const ids = Array.isArray(value)
          ? value.map((id) =>
              typeof id === 'string' || typeof id === 'number' || typeof id === 'bigint'
                ? parseId(String(id))
                : undefined,
            )
          : undefined;
        if (ids === undefined || ids.some((id) => id === undefined))
          return 'vanishOnRead must be an array of audience ids (positive integers, or their digits in strings)';
        patch.vanishOnRead = ids as Long[];
        break;
      }
      default:
        return `unknown field '${key}'`;
    }
  }
  return patch;
}
