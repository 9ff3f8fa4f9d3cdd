/**
 * A stand-in for `rsync`, put first on the PATH of gitlab-ci-local by the GitLab example's test
 * (install-gitlab.test.ts; see `rsyncStandIn` in stand-in.ts), so that `npm test` needs nothing
 * outside npm. gitlab-ci-local copies files with rsync, and no npm package provides one.
 *
 * It does what rsync 3.2 does for exactly the two invocations gitlab-ci-local 4.73.0 makes
 * when it runs a job with the shell executor (no --shell-isolation, no cache):
 *   mirror: rsync -a --delete-excluded --delete --exclude-from=FILE --exclude PATTERN SRC/ DEST/
 *     (the tracked files copied into .gitlab-ci-local/builds/.docker/ before the jobs run)
 *   list:   rsync --exclude PATTERN -rRa --files-from=FILE . DEST/.
 *     (a job's artifacts copied into .gitlab-ci-local/artifacts/JOB/)
 * Any other invocation, exclude pattern or kind of file exits 1 with a message saying what is
 * supported: gitlab-ci-local runs the list form under `|| true`, so the test checks the
 * artifacts themselves. test/e2e/rsync-stand-in.test.ts tests each form on real trees and,
 * where rsync is installed, against rsync itself.
 *
 * What `-a` keeps here: regular files (rewritten every time, through a temporary file renamed
 * into place, never through a link), directories, symbolic links as links, permissions,
 * modification times (to the microsecond, as Node sets them), and owners when run as root, as
 * rsync does. Access times are not kept, as with rsync's `-a`. Unlike rsync, which leaves a
 * folder's time alone when it is within the second of the copy, every folder's time is set.
 */
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const SUPPORTED = `
  rsync -a --delete-excluded --delete --exclude-from=FILE [--exclude PATTERN]... SRC/ DEST/
  rsync [--exclude PATTERN]... -rRa --files-from=FILE . DEST`;

/** An invocation, pattern or file this stand-in does not handle: exit 1, saying so. */
class Unsupported extends Error {}

/** A file or folder that could not be copied: reported, the rest copied, exit 23 (as rsync's "partial transfer"). */
class Partial extends Error {}

/** The options given, or Unsupported. */
function parseArguments(args) {
  const options = { flags: new Set(), excludes: [], operands: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const equals = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const [name, inline] = equals > 0 ? [arg.slice(0, equals), arg.slice(equals + 1)] : [arg];
    const takesValue = ['--exclude', '--exclude-from', '--files-from'].includes(name);
    const value = inline ?? (takesValue && i + 1 < args.length ? args[++i] : undefined);
    if (takesValue && value === undefined) throw new Unsupported(`the option ${arg} without a value`);
    if (name === '--exclude') options.excludes.push(value);
    else if (name === '--exclude-from') options.excludes.push(...readLines(value));
    else if (name === '--files-from') options.filesFrom = value;
    else if (arg === '--delete' || arg === '--delete-excluded') options.flags.add(arg);
    else if (/^-[arR]+$/.test(arg)) for (const letter of arg.slice(1)) options.flags.add(`-${letter}`);
    else if (arg.startsWith('-')) throw new Unsupported(`the option ${arg}`);
    else options.operands.push(arg);
  }
  return options;
}

/** The mode of an invocation: exactly one of the two forms above. */
function formOf({ flags, filesFrom, operands }) {
  const has = (...names) => names.every((name) => flags.has(name));
  const only = (...names) => [...flags].every((name) => names.includes(name));
  if (operands.length !== 2) return undefined;
  const [source] = operands;
  const mirror = ['-a', '--delete', '--delete-excluded'];
  if (filesFrom === undefined && has(...mirror) && only('-r', ...mirror) && source.endsWith('/')) return 'mirror';
  if (filesFrom !== undefined && has('-a', '-r', '-R') && only('-a', '-r', '-R') && source === '.') return 'list';
  return undefined;
}

/**
 * The lines of a list file, as rsync reads --exclude-from and --files-from: blank lines and
 * lines starting with `#` or `;` are left out.
 */
function readLines(file) {
  if (file === '-') throw new Unsupported('a list read from standard input');
  return fs
    .readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line !== '' && !line.startsWith('#') && !line.startsWith(';'));
}

/**
 * An exclude pattern as rsync reads it: a leading `/` anchors it at the top of the transfer, a
 * trailing `/` matches folders only; `*` and `?` match within a name, `**` across names; a
 * pattern with a `/` or `**` in it matches the end of the path, one without matches the last
 * name. Character classes, `***`, escapes in wildcard patterns and rule prefixes are refused.
 */
function compilePattern(pattern) {
  if (pattern === '!' || /^[+-][ _]/.test(pattern)) throw new Unsupported(`the filter rule ${JSON.stringify(pattern)}`);
  let text = pattern;
  const folderOnly = text.endsWith('/');
  if (folderOnly) text = text.slice(0, -1);
  const anchored = text.startsWith('/');
  if (anchored) text = text.slice(1);
  const wild = /[*?[]/.test(text);
  if (wild && /[[\\]|\*\*\*/.test(text)) throw new Unsupported(`the pattern ${JSON.stringify(pattern)}`);
  const body = wild ? wildcardSource(text) : escapeRegExp(text);
  const regex = new RegExp(`${anchored ? '^' : '(?:^|/)'}${body}$`, 's');
  return (path, isFolder) => (isFolder || !folderOnly) && regex.test(path);
}

function wildcardSource(text) {
  return text
    .split(/(\*\*|\*|\?)/)
    .map((part) => ({ '**': '.*', '*': '[^/]*', '?': '[^/]' })[part] ?? escapeRegExp(part))
    .join('');
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether any of the patterns excludes this path (relative to the top of the transfer). */
function excluderOf(patterns) {
  const tests = patterns.map(compilePattern);
  return (path, stats) => tests.some((test) => test(path, stats.isDirectory()));
}

function lstatOrUndefined(path) {
  try {
    return fs.lstatSync(path, { bigint: true });
  } catch (error) {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Sockets, pipes and devices (rsync -a's -D) are refused before anything is written. */
function refuseSpecial(path, stats) {
  if (!stats.isFile() && !stats.isDirectory() && !stats.isSymbolicLink()) {
    throw new Unsupported(`${path} (not a regular file, folder or symbolic link)`);
  }
}

/**
 * Adds the folder's contents below `path` (relative to `top`) to `entries`, parents before
 * their children, leaving out what is excluded and not looking inside it.
 */
function walk(top, path, excluded, entries) {
  for (const name of fs.readdirSync(join(top, path)).sort()) {
    const child = path === '.' ? name : `${path}/${name}`;
    const stats = fs.lstatSync(join(top, child), { bigint: true });
    if (excluded(child, stats)) continue;
    refuseSpecial(child, stats);
    entries.set(child, stats);
    if (stats.isDirectory()) walk(top, child, excluded, entries);
  }
}

/** The entries of the mirror form: the source folder itself as `.`, and all it holds but what is excluded. */
function mirrorEntries(source, excluded) {
  const entries = new Map([['.', fs.lstatSync(source, { bigint: true })]]);
  walk(source, '.', excluded, entries);
  return entries;
}

/**
 * The entries of the list form: the source folder itself as `.`, then each name of the list
 * that is not excluded with the folders that lead to it (not filtered, as rsync's implied
 * folders are not) and, for a folder, all it holds but what is excluded. A name that does not
 * exist is reported and passed over.
 */
function listEntries(source, names, excluded, problems) {
  const entries = new Map([['.', fs.lstatSync(source, { bigint: true })]]);
  for (const line of names) {
    const name = line.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
    const parts = name.split('/');
    if (line.startsWith('/') || parts.some((part) => part === '' || part === '.' || part === '..')) {
      throw new Unsupported(`the name ${JSON.stringify(line)} in the --files-from list`);
    }
    const stats = lstatOrUndefined(join(source, name));
    if (!stats) {
      problems.push(`link_stat "${resolve(source, name)}" failed: No such file or directory (2)`);
      continue;
    }
    if (excluded(name, stats)) continue;
    refuseSpecial(name, stats);
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      const folderStats = fs.lstatSync(join(source, folder), { bigint: true });
      if (!folderStats.isDirectory()) throw new Unsupported(`the name ${name} (${folder} is not a folder)`);
      entries.set(folder, folderStats);
    }
    entries.set(name, stats);
    if (stats.isDirectory()) walk(source, name, excluded, entries);
  }
  return entries;
}

const asRoot = process.getuid?.() === 0;

/** Seconds as a number, for utimes: whole seconds and nanoseconds added, as close as a double gets. */
function seconds(nanoseconds) {
  return Number(nanoseconds / 1_000_000_000n) + Number(nanoseconds % 1_000_000_000n) / 1e9;
}

/** rsync -a's attributes: the owner first (a change of owner clears set-user-ID bits), then the mode, then the time. */
function keepAttributes(path, stats) {
  if (asRoot) fs.lchownSync(path, Number(stats.uid), Number(stats.gid));
  if (!stats.isSymbolicLink()) fs.chmodSync(path, Number(stats.mode & 0o7777n));
  fs.lutimesSync(path, Date.now() / 1000, seconds(stats.mtimeNs));
}

/** Writes one entry at `target`, replacing whatever of another kind is there. Folders get their attributes later. */
function copyEntry(from, target, stats) {
  const present = lstatOrUndefined(target);
  if (stats.isDirectory()) {
    if (present && !present.isDirectory()) fs.rmSync(target, { recursive: true, force: true });
    if (!present?.isDirectory()) fs.mkdirSync(target, { mode: 0o700 });
    return;
  }
  if (present?.isDirectory()) fs.rmSync(target, { recursive: true, force: true });
  if (stats.isSymbolicLink()) {
    if (present && !present.isDirectory()) fs.rmSync(target, { force: true });
    fs.symlinkSync(fs.readlinkSync(from), target);
    keepAttributes(target, stats);
    return;
  }
  // Renamed into place, so that a link or a read-only file already there is replaced, not written through.
  const temporary = join(dirname(target), `.rsync-stand-in.${process.pid}.${Math.random().toString(36).slice(2)}`);
  fs.copyFileSync(from, temporary);
  keepAttributes(temporary, stats);
  fs.renameSync(temporary, target);
}

/** Removes from the mirror whatever the source did not send (rsync's --delete with --delete-excluded). */
function removeExtraneous(top, path, entries) {
  for (const name of fs.readdirSync(join(top, path))) {
    const child = path === '.' ? name : `${path}/${name}`;
    const sent = entries.get(child);
    if (!sent) fs.rmSync(join(top, child), { recursive: true, force: true });
    else if (sent.isDirectory()) removeExtraneous(top, child, entries);
  }
}

function transfer(form, options) {
  const [source, destination] = options.operands;
  const excluded = excluderOf(options.excludes);
  const problems = [];
  const names = form === 'list' ? readLines(options.filesFrom) : [];
  const entries = form === 'mirror' ? mirrorEntries(source, excluded) : listEntries(source, names, excluded, problems);
  // Like rsync, the destination's last folder is made when missing, not its parents.
  if (!lstatOrUndefined(destination)) fs.mkdirSync(destination);
  for (const [path, stats] of entries) copyEntry(join(source, path), join(destination, path), stats);
  if (form === 'mirror') removeExtraneous(destination, '.', entries);
  // Folders last, deepest first: writing into a folder changes its time, and a read-only folder takes no writes.
  for (const [path, stats] of [...entries].reverse()) {
    if (stats.isDirectory()) keepAttributes(join(destination, path), stats);
  }
  if (problems.length > 0) throw new Partial(problems.join('\n'));
}

try {
  const options = parseArguments(process.argv.slice(2));
  const form = formOf(options);
  if (!form) throw new Unsupported('this combination of options and operands');
  transfer(form, options);
} catch (error) {
  const args = process.argv.slice(2).join(' ');
  if (error instanceof Unsupported) {
    process.stderr.write(`rsync (the test's stand-in): ${error.message} is not supported: rsync ${args}\n`);
    process.stderr.write(`It supports only what gitlab-ci-local runs in the GitLab example's test:${SUPPORTED}\n`);
    process.exit(1);
  }
  process.stderr.write(`rsync (the test's stand-in): ${error instanceof Partial ? error.message : String(error)}\n`);
  process.stderr.write(`some files were not copied: rsync ${args}\n`);
  process.exit(23);
}
