#!/usr/bin/env node
// Bundles the command line into dist/bundle/ (run by `npm run build`, after tsc).
//
// A cold start of `audiences` is mostly node reading and compiling code: yargs alone is 40
// modules, diff 30. The command line is one CommonJS file, named by its content's hash
// (`audiences-HASH.cjs`, named in manifest.json), because a script, unlike a module, can be
// compiled from V8's code cache: bin/audiences.js keeps one per command and node version in the
// user's cache folder, so every run after the first skips compiling the code that run needs.
// dist/ (from tsc) stays for the tests, the emulator and the benchmark, which import modules one
// by one.
//
// The bundle sits two folders below the package root, as dist/<layer>/ does, so the paths the
// code resolves against import.meta.url (../../schemas, ../../package.json) hold in both.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist/bundle`;

rmSync(outdir, { recursive: true, force: true });
const { metafile } = await build({
  absWorkingDir: root,
  entryPoints: { audiences: 'src/cli/main.ts' },
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.cjs' },
  outdir,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // Names are minified too: keeping them (keepNames) wraps every function made at run time in
  // a call that redefines its name, a tenth of the CPU of reading a large file. The error classes
  // set their names themselves, and --debug traces name the source files and lines.
  minify: true,
  sourcemap: true,
  metafile: true,
  // sharp loads a native binary for this platform; ajv's runtime helpers are required by the
  // generated validators at run time.
  external: ['sharp', 'ajv'],
  // A script has no import.meta: the code's own URL is the bundle's. The banner keeps the code strict, as the modules
  // it is made of are (a directive after it would be a plain string).
  define: { 'import.meta.url': '__importMetaUrl' },
  banner: { js: "'use strict';const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
});
// What bin/audiences.js loads, and the commands it keeps a code cache for (named once the help below is rendered).
const output = Object.keys(metafile.outputs).find((name) => name.endsWith('.cjs'));
const bundle = basename(output);
// A script has no loader for import(): a package the bundle leaves out is required instead.
const imported = metafile.outputs[output].imports.filter((entry) => entry.kind === 'dynamic-import');
if (imported.length > 0) throw new Error(`the bundle imports ${imported.map((entry) => entry.path).join(', ')}`);
const writeManifest = (commands) =>
  writeFileSync(`${outdir}/manifest.json`, `${JSON.stringify({ bundle, commands })}\n`);
writeManifest([]);

// `audiences --help` and `audiences COMMAND --help`, rendered once here by the bundle itself
// (stdout piped: the 100-column layout) and printed by bin/audiences.js without loading the
// parser, which is most of a start. A narrower terminal, or any other argument, goes the usual way.
const bin = `${root}bin/audiences.js`;
const render = (args) =>
  execFileSync(process.execPath, [bin, ...args, '--help'], {
    encoding: 'utf8',
    env: { ...process.env, AUDIENCES_NO_HELP_CACHE: '1', AUDIENCES_NO_COMPILE_CACHE: '1' },
  });
const commands = [...render([]).matchAll(/^ {2}audiences (\w+)/gm)].map((match) => match[1]);
const help = Object.fromEntries([['', render([])], ...commands.map((command) => [command, render([command])])]);
writeFileSync(`${outdir}/help.json`, `${JSON.stringify(help)}\n`);
writeManifest(commands);
