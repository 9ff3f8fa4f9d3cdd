#!/usr/bin/env node
// Bundles the command line into dist/bundle/ (run by `npm run build`, after tsc).
//
// A cold start of `audiences` is mostly node finding, reading and compiling modules: yargs
// alone is 40 of them, diff 30. One entry file and a few chunks cut that by a third. The
// commands' dynamic imports stay chunks of their own, so `--help` still loads no more than
// the parser. bin/audiences.js runs the bundle; dist/ (from tsc) stays for the tests, the
// emulator and the benchmark, which import modules one by one.
//
// The bundle sits two folders below the package root, as dist/<layer>/ does, so the paths the
// code resolves against import.meta.url (../../schemas, ../../package.json) hold in both.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { audiences: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Names are minified too: keeping them (keepNames) wraps every function made at run time in
  // a call that redefines its name, a tenth of the CPU of reading a large file. The error classes
  // set their names themselves, and --debug traces name the source files and lines.
  minify: true,
  sourcemap: true,
  // sharp loads a native binary for this platform; ajv's runtime helpers are required by the
  // generated validators at run time.
  external: ['sharp', 'ajv'],
  // Bundled CommonJS packages (undici) require node's own modules.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});

// `audiences --help` and `audiences COMMAND --help`, rendered once here by the bundle itself
// (stdout piped: the 100-column layout) and printed by bin/audiences.js without loading the
// parser, which is most of a start. A narrower terminal, or any other argument, goes the usual way.
const bin = `${root}bin/audiences.js`;
const render = (args) =>
  execFileSync(process.execPath, [bin, ...args, '--help'], {
    encoding: 'utf8',
    env: { ...process.env, AUDIENCES_NO_HELP_CACHE: '1' },
  });
const commands = [...render([]).matchAll(/^ {2}audiences (\w+)/gm)].map((match) => match[1]);
const help = Object.fromEntries([['', render([])], ...commands.map((command) => [command, render([command])])]);
writeFileSync(`${outdir}/help.json`, `${JSON.stringify(help)}\n`);
