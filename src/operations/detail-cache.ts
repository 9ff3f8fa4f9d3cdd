import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseServiceUrl } from '../api/exchange.js';
import { CODE_SET_FIELDS, DEFINITION_FIELDS, REGION_FIELDS, SCALAR_FIELDS, type LiveAudience } from '../model/index.js';
import { EMULATOR_STATE_FILE, type Connection } from './connection.js';
import { fileWriteError } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import type { AccountReader } from './account-reader.js';

/** Whose reads a cache file holds: the audience service's address and the ad account. */
export interface CacheKey {
  service: string;
  adAccountId: number;
}

/**
 * Where `plan --cache` keeps the full reads of an account of a service, beside the emulator's
 * state: one file per service and account, so the reads of another service (a staging one, an
 * emulator) are never taken for this one's.
 */
function detailCachePath(cwd: string, key: CacheKey): string {
  const service = createHash('sha256').update(key.service).digest('hex').slice(0, 16);
  return join(cwd, '.audiences', 'cache', `${key.adAccountId}-${service}.json`);
}

/**
 * The audience service as a cache names it: the address its requests go to (the base URL's
 * origin and path, never its user name, password, query or fragment), or the built-in
 * emulator's state file, since that emulator listens on another port every run.
 */
export function cacheService(connection: Pick<Connection, 'endpoints' | 'emulated'>): string {
  if (connection.emulated) return `emulator ${EMULATOR_STATE_FILE}`;
  const base = parseServiceUrl(connection.endpoints.apiUrl, 'ADS_API_URL');
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}`;
}

interface CacheFile {
  version: 2;
  service: string;
  adAccountId: number;
  audiences: Record<string, LiveAudience>;
}

export interface CachedReader extends AccountReader {
  /** Writes what was read to the cache file (only audiences the list still has). */
  save(): Promise<void>;
  readonly hits: number;
}

/**
 * An opt-in cache of single reads, keyed by service, account, id and lastModifiedDate: an
 * audience whose modification date in the list equals the cached one is not read again, so a
 * repeated plan with no changes costs the list and the link lists only. The service's dates
 * have whole seconds, so two changes within one second look alike: that is why the cache is
 * opt-in. An audience without a date (the list or the read answered none) is read every time:
 * nothing tells its changes apart. An unreadable or foreign cache file (another service's or
 * account's), or an entry not of the shape of a read, is ignored and rewritten, never trusted.
 */
export function cachedReader(reader: AccountReader, cwd: string, key: CacheKey): CachedReader {
  const path = detailCachePath(cwd, key);
  let cached: Record<string, LiveAudience> = {};
  const listed = new Map<string, string>();
  const fresh: Record<string, LiveAudience> = {};
  let hits = 0;
  return {
    async list() {
      const [summaries, stored] = await Promise.all([reader.list(), loadCache(path, key)]);
      cached = stored;
      for (const summary of summaries) listed.set(summary.id, summary.lastModifiedDate);
      return summaries;
    },
    async read(id) {
      const hit = cached[String(id)];
      if (hit && dated(hit) && hit.lastModifiedDate === listed.get(id)) {
        hits += 1;
        fresh[String(id)] = hit;
        return hit;
      }
      const audience = await reader.read(id);
      fresh[String(id)] = audience;
      return audience;
    },
    adGroups: (id) => reader.adGroups(id),
    get hits() {
      return hits;
    },
    async save() {
      const keep = Object.fromEntries(
        Object.entries({ ...cached, ...fresh }).filter(
          ([id, audience]) => dated(audience) && listed.get(id) === audience.lastModifiedDate,
        ),
      );
      const file: CacheFile = { version: 2, service: key.service, adAccountId: key.adAccountId, audiences: keep };
      try {
        await mkdir(join(path, '..'), { recursive: true });
      } catch (error) {
        throw fileWriteError(error, path);
      }
      await writeFileAtomically(path, JSON.stringify(file));
    },
  };
}

/** Whether a read has a modification date to be told by: an empty or blank one tells nothing. */
function dated(audience: LiveAudience): boolean {
  return typeof audience.lastModifiedDate === 'string' && audience.lastModifiedDate.trim() !== '';
}

/**
 * The entries of the cache file that are this service's and account's, and each of the shape
 * of a read (an entry edited, cut short or written by another version is read again, never
 * planned from).
 */
async function loadCache(path: string, key: CacheKey): Promise<Record<string, LiveAudience>> {
  let file: Partial<Record<keyof CacheFile, unknown>>;
  try {
    file = JSON.parse(await readFile(path, 'utf8')) as Partial<Record<keyof CacheFile, unknown>>;
  } catch {
    return {};
  }
  const ours =
    isRecord(file) && file.version === 2 && file.service === key.service && file.adAccountId === key.adAccountId;
  if (!ours || !isRecord(file.audiences)) return {};
  return Object.fromEntries(
    Object.entries(file.audiences).filter((entry): entry is [string, LiveAudience] => isCachedRead(entry[0], entry[1])),
  );
}

const SUMMARY_TEXTS = ['name', 'audienceStatus', 'type', 'createdDate', 'lastModifiedDate'] as const;
const TEXT_FIELDS: ReadonlySet<string> = new Set([...SCALAR_FIELDS, ...CODE_SET_FIELDS]);

/**
 * Whether a cache entry has the shape of a read of audience `id`: its summary, its score, every field of its
 * definition, and what the file cannot hold.
 */
function isCachedRead(id: string, entry: unknown): boolean {
  if (!isRecord(entry) || entry['id'] !== id || !SUMMARY_TEXTS.every((field) => typeof entry[field] === 'string'))
    return false;
  if (entry['populationScore'] !== null && typeof entry['populationScore'] !== 'number') return false;
  const { definition, unmodelled } = entry;
  if (!isRecord(unmodelled) || !Object.values(unmodelled).every((text) => typeof text === 'string')) return false;
  if (!isRecord(definition) || Object.keys(definition).length !== DEFINITION_FIELDS.length) return false;
  return DEFINITION_FIELDS.every((field) => {
    const value = definition[field];
    if ((SCALAR_FIELDS as readonly string[]).includes(field)) return typeof value === 'string';
    if (!Array.isArray(value)) return false;
    if (TEXT_FIELDS.has(field)) return value.every((item) => typeof item === 'string');
    if ((REGION_FIELDS as readonly string[]).includes(field))
      return value.every((region) => isRecord(region) && typeof region['value'] === 'string');
    return value.every(isRecord);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
