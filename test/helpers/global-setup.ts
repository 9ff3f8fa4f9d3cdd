import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** What `npm run build` reads: the sources it compiles, its configuration, the bundler, bin/ and the locked packages. */
const inputs = [
  'src',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/bundle.mjs',
  'bin',
  'package.json',
  'package-lock.json',
];

/**
 * Where the last build made here is recorded: outside dist/, which `npm pack` ships, and beside the other caches of
 * node_modules/, which `npm ci` empties.
 */
const stampFile = join(root, 'node_modules', '.cache', 'audiences-test-build.json');

/** One hash of the names and contents of every file under these paths (files or folders), in a fixed order. */
function digest(paths: string[]): string {
  const hash = createHash('sha256');
  for (const path of paths) {
    const full = join(root, path);
    const files = !existsSync(full)
      ? []
      : statSync(full).isDirectory()
        ? readdirSync(full, { withFileTypes: true, recursive: true })
            .filter((entry) => entry.isFile())
            .map((entry) => join(entry.parentPath, entry.name))
            .sort()
        : [full];
    hash.update(`${path}: ${files.length}\n`);
    for (const file of files)
      hash
        .update(`${relative(root, file)}\n`)
        .update(readFileSync(file))
        .update('\n');
  }
  return hash.digest('hex');
}

/**
 * End-to-end tests spawn the real `bin/audiences.js`, which runs the bundle (dist/bundle/);
 * other tests and the emulator import dist/ module by module: build both, as npm run build does.
 * A run whose build inputs and dist/ are exactly those of the last build made here builds nothing
 * (the bench after the integration tests, a test file run again): any change to either builds again.
 */
export default function setup(): void {
  const before = { inputs: digest(inputs), dist: digest(['dist']) };
  const last = existsSync(stampFile) ? (JSON.parse(readFileSync(stampFile, 'utf8')) as typeof before) : undefined;
  if (last?.inputs === before.inputs && last.dist === before.dist) return;
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  });
  execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  mkdirSync(dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, JSON.stringify({ inputs: digest(inputs), dist: digest(['dist']) }));
}
