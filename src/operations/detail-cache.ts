import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LiveAudience } from '../model/index.js';
import { fileWriteError } from './file-errors.js';
import { writeFileAtomically } from './files.js';
import type { AccountReader } from './plan.js';

/** Where `plan --cache` keeps the full reads of an account, beside the emulator's state. */
export function detailCachePath(cwd: string, adAccountId: number): string {
  return join(cwd, '.audiences', 'cache', `${adAccountId}.json`);
}

interface CacheFile {
  version: 1;
  audiences: Record<string, LiveAudience>;
}

export interface CachedReader extends AccountReader {
  /** Writes what was read to the cache file (only audiences the list still has). */
  save(): Promise<void>;
  readonly hits: number;
}

/**
 * An opt-in cache of single reads, keyed by id and lastModifiedDate: an audience whose
 * modification date in the list equals the cached one is not read again, so a repeated plan
 * with no changes costs the list and the link lists only. The service's dates have whole
 * seconds, so two changes within one second look alike: that is why the cache is opt-in.
 * An unreadable or foreign cache file is ignored and rewritten, never trusted.
 */
export function cachedReader(reader: AccountReader, path: string): CachedReader {
  let cached: Record<string, LiveAudience> = {};
  const listed = new Map<number, string>();
  const fresh: Record<string, LiveAudience> = {};
  let hits = 0;
  return {
    async list() {
      const [summaries, stored] = await Promise.all([reader.list(), loadCache(path)]);
      cached = stored;
      for (const summary of summaries) listed.set(summary.id, summary.lastModifiedDate);
      return summaries;
    },
    async read(id) {
      const hit = cached[String(id)];
      if (hit && hit.lastModifiedDate === listed.get(id)) {
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
      const keep = Object.fromEntries(Object.entries({ ...cached, ...fresh }).filter(([id, audience]) => listed.get(Number(id)) === audience.lastModifiedDate));
      const file: CacheFile = { version: 1, audiences: keep };
      try {
        await mkdir(join(path, '..'), { recursive: true });
      } catch (error) {
        throw fileWriteError(error, path);
      }
      await writeFileAtomically(path, JSON.stringify(file));
    },
  };
}

async function loadCache(path: string): Promise<Record<string, LiveAudience>> {
  try {
    const file = JSON.parse(await readFile(path, 'utf8')) as Partial<CacheFile>;
    return file.version === 1 && file.audiences && typeof file.audiences === 'object' ? file.audiences : {};
  } catch {
    return {};
  }
}
