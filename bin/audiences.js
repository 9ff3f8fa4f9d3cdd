#!/usr/bin/env node
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const BUNDLE_DIR = new URL('../dist/bundle/', import.meta.url);

/**
 * `--help` of the command line or of one command, rendered at build time (see scripts/bundle.mjs): printed without
 * loading the parser.
 */
function cachedHelp(args) {
  if (process.env.AUDIENCES_NO_HELP_CACHE || (process.stdout.columns ?? 100) < 100) return undefined;
  const asked =
    args.length === 1 && ['--help', '-h'].includes(args[0])
      ? ''
      : args.length === 2 && ['--help', '-h'].includes(args[1])
        ? args[0]
        : undefined;
  if (asked === undefined) return undefined;
  try {
    return JSON.parse(readFileSync(new URL('help.json', BUNDLE_DIR), 'utf8'))[asked];
  } catch {
    return undefined;
  }
}

/**
 * The command line's bundle (scripts/bundle.mjs), compiled with V8's code cache of the command when one is kept: the
 * bytecode of every function an earlier run of that command compiled, so a run skips most of compiling (bench/NOTES.md).
 * The cache is a file per source, command and node, named by the SHA-256 of the source read (V8 itself checks only its
 * length, and runs the cached bytecode in place of the source), in the user's cache folder, made by the first run of a
 * command and again when V8 refuses it. It is used only where the folder and the file are the user's own and no one
 * else may write them: bytecode is code. Without a cache folder, with `AUDIENCES_NO_COMPILE_CACHE` or with --debug (its
 * traces go through the source maps), the bundle is required as any CommonJS file. Returns its exports, and what saves
 * the cache once the command has run.
 */
function loadBundle(args) {
  const { bundle, commands } = JSON.parse(readFileSync(new URL('manifest.json', BUNDLE_DIR), 'utf8'));
  const filename = fileURLToPath(new URL(bundle, BUNDLE_DIR));
  const require = createRequire(filename);
  const folder = cacheFolder();
  if (folder === undefined || args.includes('--debug'))
    return { exports: require(filename), saveCache: () => undefined };
  const source = readFileSync(filename, 'utf8');
  const key = createHash('sha256').update(source).digest('hex').slice(0, 32);
  const command = args.find((arg) => commands.includes(arg)) ?? 'none';
  const cacheFile = join(folder, `${key}.${command}.node-${process.version}-${process.arch}.cache`);
  const cachedData = ownedByUser(folder) && ownedByUser(cacheFile) ? readFileSync(cacheFile) : undefined;
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, require, module, filename, dirname(filename));
  const fresh = cachedData !== undefined && !script.cachedDataRejected;
  return { exports: module.exports, saveCache: () => fresh || saveCodeCache(folder, key, cacheFile, script) };
}

/** The user's cache folder for the tool (`$XDG_CACHE_HOME/audiences`, else `~/.cache/audiences`), unless turned off. */
function cacheFolder() {
  if (process.env.AUDIENCES_NO_COMPILE_CACHE) return undefined;
  try {
    // A relative XDG_CACHE_HOME is ignored, as the XDG specification says, and so is an empty home.
    const xdg = process.env.XDG_CACHE_HOME ?? '';
    const base = isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
    return isAbsolute(base) ? join(base, 'audiences') : undefined;
  } catch {
    // No home folder to be found.
    return undefined;
  }
}

/** Whether `path` is there, the user's, and written by no one else (where the system has owners). */
function ownedByUser(path) {
  try {
    const found = statSync(path);
    return process.getuid === undefined || (found.uid === process.getuid() && (found.mode & 0o022) === 0);
  } catch {
    return false;
  }
}

/** How long a cache of another source is kept: another installed version may still be run. */
const OTHER_SOURCES_KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * Writes the code cache whole or not at all (another run may be reading it), into a new file of its own, and removes
 * the caches of other sources not made for a week, so that upgrades leave no stale files behind. A folder that cannot be
 * written, or is not the user's own, leaves the command uncached.
 */
function saveCodeCache(folder, key, cacheFile, script) {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!ownedByUser(folder)) return;
    const partial = `${cacheFile}.${process.pid}.part`;
    writeFileSync(partial, script.createCachedData(), { mode: 0o600, flag: 'wx' });
    renameSync(partial, cacheFile);
    const old = Date.now() - OTHER_SOURCES_KEPT_MS;
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (!name.startsWith(`${key}.`) && /\.(cache|part)$/.test(name) && statSync(path).mtimeMs < old)
        rmSync(path, { force: true });
    }
  } catch {
    // A cache is only ever a faster start.
  }
}

const args = process.argv.slice(2);
const help = cachedHelp(args);
if (help !== undefined) {
  // A reader that goes away first (`audiences --help | true`) ends the help, not with a trace.
  process.stdout.on('error', () => undefined);
  process.stdout.write(help);
} else {
  // With --debug, stack traces name the TypeScript sources (the bundle carries source maps).
  if (args.includes('--debug')) process.setSourceMapsEnabled(true);
  const { exports, saveCache } = loadBundle(args);
  const code = await exports.main(args);
  saveCache();
  // main has awaited everything it started, so the process ends once its output is written:
  // an exit that waits for the event loop to empty also tears down the heap, 8–12 ms more in a
  // process holding 100,000 objects (bench/NOTES.md). The stderr lines of main's last
  // turn go out a turn later (cli/process-io.ts), so that turn comes first; then an empty
  // write calls back once the writes before it are done (a pipe is written to asynchronously).
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(
    [process.stdout, process.stderr].map((stream) => new Promise((resolve) => stream.write('', resolve))),
  );
  process.exit(code);
}
