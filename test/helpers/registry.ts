import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { standIn, type StandIn } from './stand-in.js';

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  [field: string]: unknown;
}

/** The fields of a lock entry that a registry's manifest of that version carries too. */
const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'license',
];

/**
 * A loopback stand-in for the npm registry that knows exactly the packages of this repository's
 * package-lock.json (its runtime dependencies, and the platform builds sharp chooses from) and
 * serves their tarballs from the npm cache, where `npm ci` left them (by their integrity): so a
 * test can install the packed tool into another project the way a team does, with no network.
 * A package the lock does not hold is a 404, as a typo would be.
 */
export async function lockRegistry(
  lockFile: string,
  cacheDir = process.env.npm_config_cache || join(homedir(), '.npm'),
): Promise<StandIn> {
  const lock = JSON.parse(await readFile(lockFile, 'utf8')) as { packages: Record<string, LockEntry> };
  const packages = new Map<string, Map<string, LockEntry>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path || entry.link || entry.dev || !entry.version || !entry.integrity) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    if (!packages.has(name)) packages.set(name, new Map());
    packages.get(name)!.set(entry.version, entry);
  }
  const server: StandIn = await standIn(async (_request, url) => {
    const tarball = /^\/-\/tarball\/(.+)\/([^/]+)\.tgz$/.exec(url.pathname);
    if (tarball) {
      const entry = packages.get(decodeURIComponent(tarball[1]!))?.get(tarball[2]!);
      if (!entry?.integrity) return undefined;
      const bytes = await readFile(cachedContent(cacheDir, entry.integrity)).catch(() => undefined);
      return bytes ? { bytes, headers: { 'content-type': 'application/octet-stream', ...cacheable } } : undefined;
    }
    const name = decodeURIComponent(url.pathname.slice(1));
    const versions = packages.get(name);
    if (!versions) return undefined;
    const manifests = Object.fromEntries(
      [...versions].map(([version, entry]) => [
        version,
        {
          name,
          version,
          ...Object.fromEntries(
            MANIFEST_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]),
          ),
          dist: {
            tarball: `${server.url}/-/tarball/${encodeURIComponent(name)}/${version}.tgz`,
            integrity: entry.integrity,
          },
        },
      ]),
    );
    const latest = [...versions.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
    return { json: { name, 'dist-tags': { latest }, versions: manifests }, headers: cacheable };
  });
  return server;
}

/**
 * As the registry answers: cacheable for a while, so that npm installs again from its cache (a pipeline's `npm ci` after
 * the first install) rather than fetching every manifest and tarball once more.
 */
const cacheable = { 'cache-control': 'public, max-age=300' };

/** Where cacache keeps the content of this integrity. */
function cachedContent(cacheDir: string, integrity: string): string {
  const [algorithm, digest] = integrity.split(/-(.*)/s) as [string, string];
  const hex = Buffer.from(digest, 'base64').toString('hex');
  return join(cacheDir, '_cacache', 'content-v2', algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
}
