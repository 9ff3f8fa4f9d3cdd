import { readFileSync } from 'node:fs';

let version: string | undefined;

/**
 * This package's version, from its own package.json: the nearest one named `audiences` above
 * this module (src/, dist/ and the bundle sit at different depths), never one found near the
 * current folder.
 */
export function packageVersion(): string {
  if (version !== undefined) return version;
  for (let dir = new URL('.', import.meta.url); ; dir = new URL('..', dir)) {
    const manifest = readManifest(new URL('package.json', dir));
    if (manifest?.name === 'audiences')
      return (version = typeof manifest.version === 'string' ? manifest.version : '0.0.0');
    if (new URL('..', dir).href === dir.href) return (version = '0.0.0');
  }
}

function readManifest(url: URL): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}
