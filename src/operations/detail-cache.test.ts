import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveAudience } from '../../test/helpers/builders.js';
import { temporaryDir } from '../../test/helpers/temporary.js';
import type { LiveAudience } from '../model/index.js';
import { cachedReader, cacheService, type CacheKey } from './detail-cache.js';
import type { AccountReader } from './plan.js';

const endpoints = (apiUrl: string) => ({
  apiUrl,
  companyUrl: undefined,
  imageUrl: undefined,
  accessToken: 'token',
  appKey: undefined,
});

describe('the service a read cache is kept for', () => {
  it('is the address requests go to: scheme, host, port and path, never a user name, password, query or fragment', () => {
    expect(
      cacheService({
        emulated: false,
        endpoints: endpoints('https://someone:hunter2@ads.example.com:8443/base/?key=secret#top'),
      }),
    ).toBe('https://ads.example.com:8443/base');
    expect(cacheService({ emulated: false, endpoints: endpoints('https://ads.example.com') })).toBe(
      'https://ads.example.com',
    );
  });

  it('is the state file for the built-in emulator, whose port changes every run', () => {
    const first = cacheService({ emulated: true, endpoints: endpoints('http://127.0.0.1:40001') });
    expect(cacheService({ emulated: true, endpoints: endpoints('http://127.0.0.1:40002') })).toBe(first);
    expect(first).toBe('emulator .audiences/emulator-state.json');
  });
});

describe('the reads a cache file holds', () => {
  const audience = liveAudience(7, { name: 'a', ages: ['20'] });
  const key: CacheKey = { service: 'https://a.example.com', adAccountId: 1 };

  /** A plan's reads of the one audience through the cache: how many came from it, and what the read gave. */
  async function readThroughCache(cwd: string, cacheKey: CacheKey): Promise<{ hits: number; read: LiveAudience }> {
    const { id, name, audienceStatus, type, createdDate, lastModifiedDate } = audience;
    const reader: AccountReader = {
      list: async () => [{ id, name, audienceStatus, type, createdDate, lastModifiedDate }],
      read: async () => audience,
      adGroups: async () => [],
    };
    const cached = cachedReader(reader, cwd, cacheKey);
    await cached.list();
    const read = await cached.read(id);
    await cached.save();
    return { hits: cached.hits, read };
  }

  async function cacheFiles(cwd: string): Promise<string[]> {
    const folder = join(cwd, '.audiences', 'cache');
    return (await readdir(folder)).map((name) => join(folder, name));
  }

  it('are one file per service and account: those of another service or account are never taken for these', async () => {
    const cwd = await temporaryDir('audiences-cache-');
    expect((await readThroughCache(cwd, key)).hits).toBe(0);
    expect((await readThroughCache(cwd, key)).hits).toBe(1);
    expect((await readThroughCache(cwd, { ...key, service: 'https://b.example.com' })).hits).toBe(0);
    expect((await readThroughCache(cwd, { ...key, adAccountId: 2 })).hits).toBe(0);
    expect((await readThroughCache(cwd, key)).hits).toBe(1);
    expect(await cacheFiles(cwd)).toHaveLength(3);
  });

  type Json = Record<string, unknown>;
  it.each<[string, (entry: Json, definition: Json) => void]>([
    ['without unmodelled', (entry) => delete entry['unmodelled']],
    ['without its definition', (entry) => delete entry['definition']],
    ['whose definition lacks a field', (_entry, definition) => delete definition['lookalikeTargetings']],
    ['whose definition has a field of no definition', (_entry, definition) => (definition['zzzTargetings'] = [])],
    ['whose set is not a list', (_entry, definition) => (definition['ages'] = '20')],
    ['whose region has no code', (_entry, definition) => (definition['locations'] = [{ description: 'Seoul' }])],
    ['whose unmodelled field is not JSON text', (entry) => (entry['unmodelled'] = { zzz: 1 })],
    ['whose score is text', (entry) => (entry['populationScore'] = '1000')],
    ['of another id than its key', (entry) => (entry['id'] = '8')],
  ])('an entry %s is read again, never trusted', async (_case, spoil) => {
    const cwd = await temporaryDir('audiences-cache-');
    await readThroughCache(cwd, key);
    const [path] = await cacheFiles(cwd);
    const file = JSON.parse(await readFile(path as string, 'utf8')) as {
      audiences: Record<string, Json & { definition: Json }>;
    };
    const entry = file.audiences['7'] as Json & { definition: Json };
    spoil(entry, entry.definition);
    await writeFile(path as string, JSON.stringify(file));
    expect(await readThroughCache(cwd, key)).toEqual({ hits: 0, read: audience });
    expect((await readThroughCache(cwd, key)).hits).toBe(1);
  });
});
