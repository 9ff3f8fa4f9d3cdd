import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git, rsyncStandIn, run } from '../helpers/stand-in.js';
import { temporaryDir } from '../helpers/temporary.js';

/**
 * The rsync stand-in (test/helpers/rsync.mjs) that install-gitlab.test.ts puts first on
 * gitlab-ci-local's PATH: each form gitlab-ci-local 4.73.0 runs, on real trees, with the command
 * line gitlab-ci-local writes; every other invocation refused; and, where rsync is installed,
 * the same trees copied by rsync itself.
 */

let standIn: string;
beforeAll(async () => {
  standIn = await rsyncStandIn(await temporaryDir('audiences-rsync-bin-'));
});

/** Whether rsync is installed on this machine, to compare the stand-in with. */
const rsyncInstalled = (await run('sh', ['-c', 'command -v rsync'], { cwd: tmpdir() })).code === 0;

/** The environment in which `rsync` is the stand-in, or (with `real`) the installed rsync. */
const envFor = (real = false) => {
  const path = real ? process.env.PATH : `${standIn}${delimiter}${process.env.PATH}`;
  return { ...process.env, PATH: path };
};

/**
 * Every entry under `root` as one line: kind, mode, modification time in nanoseconds, and the
 * content's hash or the link's target. The trees below use whole seconds, which rsync and the
 * stand-in both set exactly.
 */
async function tree(root: string, skip: (path: string) => boolean = () => false): Promise<Record<string, string>> {
  const entries: Record<string, string> = {};
  const visit = async (path: string) => {
    const full = path === '.' ? root : join(root, path);
    const stats = await fs.lstat(full, { bigint: true });
    const mode = (stats.mode & 0o7777n).toString(8);
    if (stats.isSymbolicLink()) entries[path] = `link ${stats.mtimeNs} -> ${await fs.readlink(full)}`;
    else if (stats.isDirectory()) entries[path] = `folder ${mode} ${stats.mtimeNs}`;
    else
      entries[path] = `file ${mode} ${stats.mtimeNs} ${createHash('sha256')
        .update(await fs.readFile(full))
        .digest('hex')}`;
    if (!stats.isDirectory()) return;
    for (const name of (await fs.readdir(full)).sort()) {
      const child = path === '.' ? name : `${path}/${name}`;
      if (!skip(child)) await visit(child);
    }
  };
  await visit('.');
  return entries;
}

/** The entries of a tree at these paths. */
function pick(entries: Record<string, string>, keep: (path: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).filter(([path]) => keep(path)));
}

/**
 * Sets every time under `root` (links' own, folders after their contents) to a distinct whole
 * second of 2020: rsync leaves a folder's time alone when it is within the second of the copy.
 */
async function settleTimes(root: string): Promise<void> {
  let second = 1_577_836_800;
  const visit = async (full: string) => {
    const stats = await fs.lstat(full);
    if (stats.isDirectory()) for (const name of (await fs.readdir(full)).sort()) await visit(join(full, name));
    second += 7;
    await (stats.isSymbolicLink() ? fs.lutimes(full, second, second) : fs.utimes(full, second, second));
  };
  await visit(root);
}

async function write(root: string, path: string, content: string, mode = 0o644): Promise<void> {
  await fs.mkdir(join(root, path, '..'), { recursive: true });
  await fs.writeFile(join(root, path), content, { mode });
}

describe('the mirror of the tracked files gitlab-ci-local makes before a job', () => {
  /** gitlab-ci-local's own command (Utils.rsyncTrackedFiles), run by bash in the repository. */
  const mirror = (repo: string, target: string, real = false) => {
    const untracked = `<(git ls-files -o --directory | awk '{print "/"$0}')`;
    const options = `-a --delete-excluded --delete --exclude-from=${untracked} --exclude .gitlab-ci-local/`;
    const command = `rsync ${options} ./ .gitlab-ci-local/builds/${target}/`;
    return run('bash', ['-c', command], { cwd: repo, env: envFor(real) });
  };

  /**
   * A repository with tracked files of each kind, untracked and ignored ones, and tracked files
   * under a folder named .gitlab-ci-local, of that name, and of an untracked file's name; and in
   * each mirror of `targets`, what an earlier copy left: a stale file, an untracked one, a file
   * where the source has a folder, a folder where it has a file, a read-only file, and a link to
   * a file outside where it has a file.
   */
  async function repository(targets: string[]): Promise<{ repo: string; outside: string }> {
    const base = await temporaryDir('audiences-rsync-mirror-');
    const repo = join(base, 'repo');
    const outside = join(base, 'outside.txt');
    await fs.writeFile(outside, 'outside\n');
    await fs.mkdir(repo);
    await git(repo, 'init', '--quiet', '--initial-branch=main');
    await write(repo, 'README.md', 'readme\n');
    await write(repo, 'bin/run.sh', '#!/bin/sh\n', 0o755);
    await write(repo, 'read-only.txt', 'read only\n', 0o444);
    await write(repo, 'docs/guide/a.txt', 'a\n', 0o600);
    await fs.symlink('../README.md', join(repo, 'docs/readme-link'));
    await fs.symlink('docs', join(repo, 'docs-link'));
    await write(repo, 'sub/.gitlab-ci-local/tracked.txt', 'tracked, in a folder of that name\n');
    await write(repo, 'docs/.gitlab-ci-local', 'tracked, a file of that name\n');
    await write(repo, 'docs/notes.txt', 'tracked, of the name of an untracked file at the top\n');
    await write(repo, '.gitignore', 'node_modules/\n');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '--quiet', '-m', 'tracked');
    await write(repo, 'notes.txt', 'untracked\n');
    await write(repo, 'docs/draft.md', 'untracked in a tracked folder\n');
    await write(repo, 'build/out.bin', 'untracked folder\n');
    await write(repo, 'node_modules/pkg/index.js', 'ignored\n');
    for (const target of targets) {
      const earlier = `.gitlab-ci-local/builds/${target}`;
      await write(repo, `${earlier}/stale.txt`, 'from an earlier copy\n');
      await write(repo, `${earlier}/notes.txt`, 'untracked, from an earlier copy\n');
      await write(repo, `${earlier}/docs`, 'a file where the source has a folder\n');
      await write(repo, `${earlier}/bin/run.sh/inside.txt`, 'a folder where the source has a file\n');
      await write(repo, `${earlier}/read-only.txt`, 'older, read only\n', 0o444);
      await fs.symlink(outside, join(repo, earlier, 'README.md'));
    }
    await settleTimes(repo);
    return { repo, outside };
  }

  /** What the mirror holds: the folder itself, .git, and the tracked files but those under a .gitlab-ci-local/. */
  const mirrored = new Set('. .git .gitignore README.md bin bin/run.sh docs docs-link read-only.txt sub'.split(' '));
  const inDocs = '.gitlab-ci-local guide guide/a.txt notes.txt readme-link'.split(' ');
  for (const path of inDocs) mirrored.add(`docs/${path}`);
  const inMirror = (path: string) => mirrored.has(path) || path.startsWith('.git/');

  it('copies the tracked files with their modes, times and links, and removes all else from the mirror', async () => {
    const { repo, outside } = await repository(['.docker']);
    const source = await tree(repo, (path) => path === '.gitlab-ci-local');

    const result = await mirror(repo, '.docker');
    expect(result.code, result.stderr).toBe(0);

    expect(await tree(join(repo, '.gitlab-ci-local/builds/.docker'))).toEqual(pick(source, inMirror));
    // The link that stood where README.md goes was replaced, not written through.
    expect(await fs.readFile(outside, 'utf8')).toBe('outside\n');
    expect(await tree(repo, (path) => path === '.gitlab-ci-local')).toEqual(source);
  });

  it.runIf(rsyncInstalled)('leaves the mirror as rsync itself does (rsync is installed here)', async () => {
    const { repo } = await repository(['by-rsync', 'by-stand-in']);
    expect((await mirror(repo, 'by-rsync', true)).code).toBe(0);
    expect((await mirror(repo, 'by-stand-in')).code).toBe(0);
    const builds = join(repo, '.gitlab-ci-local/builds');
    expect(await tree(join(builds, 'by-stand-in'))).toEqual(await tree(join(builds, 'by-rsync')));
  });
});

describe("the copy of a job's artifacts gitlab-ci-local makes after it", () => {
  /**
   * A job's folder after its script: files, a folder, a link, a file deep in folders of their
   * own modes, a file under .gitlab-ci-local/; and the list of artifact names gitlab-ci-local
   * writes for them (each `./` and a path), one of them missing.
   */
  async function jobFolder(): Promise<{ cwd: string; list: string }> {
    const cwd = await temporaryDir('audiences-rsync-artifacts-');
    await write(cwd, 'plan.md', '# plan\n');
    await write(cwd, 'audiences.plan.json', '{}\n', 0o600);
    await write(cwd, 'assets/deep/banner.webp', 'image\n');
    await write(cwd, 'assets/scratch.tmp', 'left out by artifacts:exclude\n');
    await fs.symlink('plan.md', join(cwd, 'latest.md'));
    await write(cwd, 'reports/unit/junit.xml', '<testsuites/>\n', 0o640);
    await fs.chmod(join(cwd, 'reports'), 0o700);
    await write(cwd, '.gitlab-ci-local/artifacts/other-job/kept.txt', 'another job\n');
    await write(cwd, 'not-listed.txt', 'not an artifact\n');
    await fs.mkdir(join(cwd, '.gitlab-ci-local/artifacts/by-rsync'), { recursive: true });
    await fs.mkdir(join(cwd, '.gitlab-ci-local/artifacts/by-stand-in'), { recursive: true });
    const names = ['plan.md', 'audiences.plan.json', 'assets', 'latest.md', 'reports/unit/junit.xml', 'missing.json'];
    names.push('.gitlab-ci-local/artifacts/other-job/kept.txt');
    const list = join(await temporaryDir('audiences-rsync-list-'), 'files');
    await fs.writeFile(list, names.map((name) => `./${name}\n`).join(''));
    await settleTimes(cwd);
    return { cwd, list };
  }

  /** gitlab-ci-local's own command (Job.copyArtifactsOut), with one artifacts:exclude pattern. */
  const copy = (cwd: string, list: string, target: string, real = false) => {
    const excludes = ['--exclude', '.gitlab-ci-local/**', '--exclude', 'assets/*.tmp'];
    const destination = `.gitlab-ci-local/artifacts/${target}/.`;
    return run('rsync', [...excludes, '-rRa', `--files-from=${list}`, '.', destination], { cwd, env: envFor(real) });
  };

  /** What the copy holds: the folder itself, and each listed name that exists and is not excluded, with its folders. */
  const artifacts = new Set('. plan.md audiences.plan.json assets assets/deep assets/deep/banner.webp'.split(' '));
  for (const path of ['latest.md', 'reports', 'reports/unit', 'reports/unit/junit.xml']) artifacts.add(path);

  it('copies each listed name there and not excluded, with its folders, and names the missing ones', async () => {
    const { cwd, list } = await jobFolder();
    const source = await tree(cwd, (path) => path === '.gitlab-ci-local');

    const result = await copy(cwd, list, 'by-stand-in');
    // rsync's "partial transfer", which gitlab-ci-local passes over (`|| true`).
    expect(result.code).toBe(23);
    expect(result.stderr).toContain(`link_stat "${join(cwd, 'missing.json')}" failed: No such file or directory`);

    const copied = await tree(join(cwd, '.gitlab-ci-local/artifacts/by-stand-in'));
    expect(copied).toEqual(pick(source, (path) => artifacts.has(path)));
  });

  it.runIf(rsyncInstalled)('copies them as rsync itself does (rsync is installed here)', async () => {
    const { cwd, list } = await jobFolder();
    expect((await copy(cwd, list, 'by-rsync', true)).code).toBe(23);
    expect((await copy(cwd, list, 'by-stand-in')).code).toBe(23);
    const copies = join(cwd, '.gitlab-ci-local/artifacts');
    expect(await tree(join(copies, 'by-stand-in'))).toEqual(await tree(join(copies, 'by-rsync')));
  });
});

describe('any other invocation', () => {
  const mirrorOptions = ['-a', '--delete-excluded', '--delete'];
  it.each([
    ["gitlab-ci-local's copy of a dotenv report (the example has none)", ['-Ra', './build.env', 'out/.']],
    ['its copy of artifacts into a job with --shell-isolation', ['-a', 'source/.', 'out']],
    ['--delete without --delete-excluded', ['-a', '--delete', './', 'out/']],
    ['another option', ['-v', ...mirrorOptions, './', 'out/']],
    ['a character class', [...mirrorOptions, '--exclude', 'a[bc]', './', 'out/']],
    ['a rule prefix', [...mirrorOptions, '--exclude', '+ keep', './', 'out/']],
    ['a list on standard input', ['-rRa', '--files-from=-', '.', 'out/.']],
    ['a name outside the folder', ['-rRa', '--files-from=outside.list', '.', 'out/.']],
    ['an absolute name', ['-rRa', '--files-from=absolute.list', '.', 'out/.']],
    ['a name under a link', ['-rRa', '--files-from=linked.list', '.', 'out/.']],
  ])('fails, saying what it supports, and copies nothing: %s', async (_name, args) => {
    const cwd = await temporaryDir('audiences-rsync-refused-');
    await write(cwd, 'build.env', 'A=1\n');
    await write(cwd, 'source/file.txt', 'file\n');
    await fs.symlink('source', join(cwd, 'source-link'));
    await write(cwd, 'outside.list', './../elsewhere\n');
    await write(cwd, 'absolute.list', '/etc/hostname\n');
    await write(cwd, 'linked.list', './source-link/file.txt\n');
    const result = await run('rsync', args, { cwd, env: envFor() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`is not supported: rsync ${args.join(' ')}\n`);
    expect(result.stderr).toContain('It supports only what gitlab-ci-local runs');
    expect(await fs.readdir(cwd)).not.toContain('out');
  });

  it('fails on a file that is not a regular file, folder or link, naming it, before it copies anything', async () => {
    const cwd = await temporaryDir('audiences-rsync-fifo-');
    await write(cwd, 'kept.txt', 'kept\n');
    expect((await run('mkfifo', ['pipe'], { cwd })).code).toBe(0);
    const result = await run('rsync', ['-a', '--delete-excluded', '--delete', './', 'out/'], { cwd, env: envFor() });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pipe (not a regular file, folder or symbolic link) is not supported');
    expect(await fs.readdir(cwd)).not.toContain('out');
  });
});
