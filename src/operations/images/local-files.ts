import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import { lstat, readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { sha256 } from '../../apply/kinds/image.js';
import { detectImageFormat, type LocalFile } from '../../model/index.js';
import { outsideReason } from './project-paths.js';

// The image files of a project as the plan sees them: each file's hash, its format by its content
// and, for an input, its size; never read through a path that leads out of the project.

/** The SHA-256 of a regular file, or undefined when there is none (a folder, a link that leads nowhere, nothing). */
export async function regularFileHash(path: string): Promise<string | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return sha256(await readFile(path));
  } catch {
    return undefined;
  }
}

export async function inspectFile(dir: string, path: string, input: boolean): Promise<LocalFile> {
  const refused = await outsideReason(dir, path);
  if (refused !== undefined) return { status: 'refused', reason: refused };
  const absolute = resolve(dir, path);
  let link = false;
  let identity: string;
  try {
    link = (await lstat(absolute)).isSymbolicLink();
    const info = await stat(absolute);
    identity = `${info.dev}:${info.ino}`;
    if (info.isDirectory()) return { status: 'refused', reason: 'it is a folder' };
    // A FIFO would hang the read, and a device is no image.
    if (!info.isFile()) return { status: 'refused', reason: 'it is not a regular file' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'absent' };
    return { status: 'refused', reason: (error as Error).message };
  }
  const bytes = await readFile(absolute);
  const found: LocalFile = {
    status: 'present',
    sha256: sha256(bytes),
    format: detectImageFormat(bytes) ?? (isHeic(bytes) ? 'heic' : null),
    width: null,
    height: null,
    identity,
  };
  if (link) found.link = true;
  if (!input) return found;
  if (found.format !== null) {
    try {
      // Required, not imported: the command line runs as a script (bin/audiences.js), which has no loader for import().
      const sharp = createRequire(import.meta.url)('sharp') as typeof Sharp;
      const metadata = await sharp(bytes).metadata();
      found.width = metadata.width ?? null;
      found.height = metadata.height ?? null;
    } catch {
      // A size that cannot be read is left unknown; the service judges the file itself.
    }
  }
  return found;
}

/** HEIC by its `ftyp` box and an HEVC brand, the way the format is recognised without decoding it. */
function isHeic(bytes: Uint8Array): boolean {
  if (bytes.length < 16 || new TextDecoder().decode(bytes.subarray(4, 8)) !== 'ftyp') return false;
  const size = Math.min(
    bytes.length,
    ((bytes[0] ?? 0) << 24) | ((bytes[1] ?? 0) << 16) | ((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0),
  );
  const brands = new TextDecoder().decode(bytes.subarray(8, Math.max(8, size)));
  return /heic|heix|heim|heis|hevc|hevx|hevm|hevs/.test(brands);
}

export function hashOf(file: LocalFile): string | null {
  return file.status === 'present' ? file.sha256 : null;
}
