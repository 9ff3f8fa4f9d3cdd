#!/usr/bin/env node
import { readFileSync } from 'node:fs';

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
    return JSON.parse(readFileSync(new URL('../dist/bundle/help.json', import.meta.url), 'utf8'))[asked];
  } catch {
    return undefined;
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
  const { main } = await import('../dist/bundle/audiences.js');
  const code = await main(args);
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
